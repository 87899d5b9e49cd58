package io.semafor.replication;

import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import org.jspecify.annotations.Nullable;

/**
 * Receives what the replicator applied, in apply order, on the applying thread, never concurrently.
 * Must not block: it routes answers and arms timers.
 *
 * <p>What the asker gave with each request comes back typed as it was given: {@code C} with a
 * command ({@link Replicator#submit}), {@code R} with a read ({@link Replicator#read}), {@code S}
 * with a snapshot ({@link Replicator#snapshot}). The replicator never looks inside them.
 *
 * @param <C> what a command's asker gave to route its answer
 * @param <R> what a read's asker gave
 * @param <S> what a snapshot's asker gave
 */
public interface ApplyListener<C, R, S> {

  /**
   * A command was applied.
   *
   * @param context what {@link Replicator#submit} was given
   * @param logTime the log time the command was applied at
   */
  void applied(Command command, @Nullable C context, Outcome outcome, long logTime);

  /** A query was answered. */
  void answered(Query query, @Nullable R context, Reply reply, long logTime);

  /** A batch of commands ends here: a good moment to flush what was written. */
  default void batchEnded() {}

  /**
   * A command submitted here will not be applied by this node: it is not (or no longer) the leader,
   * or the group could not be reached. Whether it was applied elsewhere is unknown to this node; a
   * client that retries under the same request id is applied once either way.
   */
  default void refused(Command command, @Nullable C context, String leaderHint) {}

  /** Like {@link #refused} for a read. */
  default void readRefused(Query query, @Nullable R context, String leaderHint) {}

  /**
   * The machine was replaced wholesale (restart from a snapshot, a snapshot installed from the
   * leader): every timer and session must be tracked afresh from {@code machine}'s state.
   */
  default void restored(io.semafor.core.SemaphoreMachine machine, long logTime) {}

  /**
   * A snapshot asked for with {@link Replicator#snapshot} was taken where it fell in the apply
   * order, on this node (the one that asked). Called on the applying thread; the image is the
   * listener's.
   */
  default void snapshotTaken(@Nullable S context, SnapshotFile.Image image) {}

  /** Like {@link #refused} for a snapshot: this node does not lead, or the entry did not commit. */
  default void snapshotRefused(@Nullable S context, String leaderHint) {}

  /** This node became the leader and may serve clients; it tracks every session afresh. */
  default void becameLeader() {}

  /** This node stopped being the leader: its clients must go to the new one. */
  default void lostLeadership(String leaderHint) {}

  /**
   * The replicator cannot go on: its log could not be written (a sync failed, the disk is full).
   * After a failed sync nothing says what reached the disk, so the node must stop rather than go on
   * with a log it cannot trust; started again, it recovers from what is on disk and catches up from
   * the others. Called once, on a replicator thread.
   */
  default void failed(String what, Throwable cause) {}
}
