package io.semafor.server;

/**
 * A snapshot a client asked for: where and under which id to send it (the snapshot context of the
 * server's {@link io.semafor.replication.Replicator}).
 */
record PendingSnapshot(Connection connection, long id) {}
