/**
 * Semafor on a Raft group (Apache Ratis): {@link io.semafor.raft.RaftReplicator} is a {@code
 * Replicator} whose commands are log entries applied by the same state machine on every node.
 */
@NullMarked
package io.semafor.raft;

import org.jspecify.annotations.NullMarked;
