package io.semafor.server.session;

/**
 * Who is at the other end of a connection, as the transport saw it when it connected.
 *
 * @param address the client's address as the audit log writes it (host and port)
 * @param host the client's host alone: whose quota of sessions an unauthenticated client's count
 *     against
 */
public record Peer(String address, String host) {}
