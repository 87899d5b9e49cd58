package io.semafor.raft;

import io.semafor.replication.DataDamagedException;
import java.nio.file.Path;
import org.apache.ratis.io.MD5Hash;

/**
 * A snapshot whose bytes no longer hash to the digest written beside it (a bad disk, a bit flip, a
 * file damaged by hand): the node refuses to load it, and so to start, rather than serve a state
 * that may differ from the other members' without anyone knowing. The message says what an operator
 * does about it (docs/operations.md#a-node-says-its-snapshot-is-corrupt). Thrown, as the cause of
 * the start's failure, by {@link RaftReplicator#start} and by loading a snapshot a leader sent.
 */
public final class CorruptSnapshotException extends DataDamagedException {
  private static final long serialVersionUID = 1L;

  CorruptSnapshotException(Path snapshot, MD5Hash written, MD5Hash read) {
    super(
        "the snapshot "
            + snapshot
            + " is corrupt: its content hashes to MD5 "
            + read
            + ", not to the "
            + written
            + " written with it. This node will not start from it. Its data cannot be trusted:"
            + " remove the member (semafor cluster remove ID), empty its data directory and add"
            + " it back (docs/operations.md#a-node-says-its-snapshot-is-corrupt)");
  }
}
