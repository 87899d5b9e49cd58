package io.semafor.client;

import io.semafor.ClientInfo;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One live session as the server saw it ({@link SemaforClient#sessions()}): its client, TTL, age,
 * how long since its last request (keep-alives do not count), how long since the server last heard
 * from its client at all (keep-alives count: this is what expiry measures against the TTL), and how
 * many semaphores it owns permits on, requests it has waiting and replies it has not acknowledged.
 *
 * @param sessionId the session's id, as {@code inspect} shows its holders and waiters
 * @param client who its client said it is
 * @param principal the authenticated principal that owns it; empty if anonymous
 * @param ttl how long it outlives its client's silence
 * @param age since it opened
 * @param sinceLastRequest since its last request reached the state machine
 * @param sinceHeard since the server last heard from its client, keep-alives included: a session
 *     ends when this passes its TTL; null from a server that does not report it
 * @param holdings semaphores it owns permits on
 * @param waiting its waiting requests and WaitMany entries
 * @param unacknowledged replies it has not acknowledged yet
 */
public record SessionInfo(
    long sessionId,
    ClientInfo client,
    String principal,
    Duration ttl,
    Duration age,
    Duration sinceLastRequest,
    @Nullable Duration sinceHeard,
    int holdings,
    int waiting,
    int unacknowledged) {}
