package io.semafor.server.session;

import io.semafor.core.Name;

/**
 * A watch a client asked for and the machine accepted. Its {@code start} tells apart the starts of
 * one id: an id unwatched and watched again is another request, and a start still on its way for
 * the first must not start the second ({@link ServerSession#watching}).
 *
 * @param id the client's id for the watch, unique among the connection's running watches
 * @param name the name watched, or the prefix of the names watched
 * @param prefix whether {@code name} is a prefix
 * @param afterRevision the revision the client has seen (0: none), so a resumed watch is sent only
 *     what changed after it
 * @param limit the entries per list of a watched state
 * @param summary whether a state is sent as a summary without its lists
 * @param start which watch started on the connection this is (1 for the first), unique to it
 */
public record WatchRequest(
    long id,
    Name name,
    boolean prefix,
    long afterRevision,
    int limit,
    boolean summary,
    long start) {}
