/**
 * The seam between the state machine and where commands are decided: {@link
 * io.semafor.replication.Replicator}, and its in-process implementation {@link
 * io.semafor.replication.LocalReplicator}.
 */
@NullMarked
package io.semafor.replication;

import org.jspecify.annotations.NullMarked;
