/**
 * What every replicator that runs a Raft group shares, whatever library runs the group: the log
 * entry and its encoding of commands ({@link io.semafor.replication.group.Entry}, part of the logs'
 * on-disk format), and who leads with the leader's log time ({@link
 * io.semafor.replication.group.Leadership}).
 */
@NullMarked
package io.semafor.replication.group;

import org.jspecify.annotations.NullMarked;
