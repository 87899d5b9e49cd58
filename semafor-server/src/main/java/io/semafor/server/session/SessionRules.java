package io.semafor.server.session;

import java.time.Duration;

/**
 * The server's settings a connection's session machine applies.
 *
 * @param helloTimeout how long a connection may go without opening a session
 * @param idleTimeout how long a connection without a session may stay silent
 * @param defaultTtl the TTL of a session whose client names none
 * @param minTtl the shortest TTL a client may ask for
 * @param maxTtl the longest TTL a client may ask for
 * @param maxNameBytes the longest name a watch may name
 * @param maxFrameBytes the largest frame the server sends, which bounds a read's page
 */
public record SessionRules(
    Duration helloTimeout,
    Duration idleTimeout,
    Duration defaultTtl,
    Duration minTtl,
    Duration maxTtl,
    int maxNameBytes,
    int maxFrameBytes) {}
