package io.semafor.replication.group;

import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.SnapshotFile;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one committed {@link Entry} to the machine, the same way under every replicator (issue
 * 34's kit): every member applies its commands in order at the entry's log time; the member that
 * proposed it — the one that holds what its items were {@link Asked} with — also answers its reads
 * and takes its snapshot, since only it has their askers. Outcomes go to the {@link ApplyListener},
 * and the batch ends there once the entry is done.
 *
 * <p>Nothing is thrown for a command the machine fails on (a bug, deterministic on every member):
 * it is logged and skipped, so that the group stays alive and alike. Not thread-safe: the
 * replicator's applying thread only.
 *
 * @param <C> what a command's asker gave ({@link io.semafor.replication.Replicator})
 * @param <R> what a read's asker gave
 * @param <S> what a snapshot's asker gave
 */
public final class EntryApplier<C, R, S> {
  private static final Logger log = LoggerFactory.getLogger(EntryApplier.class);

  private final ApplyListener<C, R, S> listener;

  /** An applier that tells {@code listener} each outcome. */
  public EntryApplier(ApplyListener<C, R, S> listener) {
    this.listener = listener;
  }

  /**
   * Applies {@code entry}, at log {@code index} of {@code term}, to {@code machine}.
   *
   * @param mine what this member asked its items with, index for index; null if another member
   *     proposed the entry (or its askers are gone)
   */
  public void apply(
      SemaphoreMachine machine,
      Entry entry,
      @Nullable List<Asked<C, R, S>> mine,
      long term,
      long index) {
    List<Entry.Item> items = entry.items();
    for (int i = 0; i < items.size(); i++) {
      Entry.Item item = items.get(i);
      Asked<C, R, S> asked = mine == null ? null : mine.get(i);
      if (item instanceof Entry.Op op) {
        C context = asked instanceof Asked.Op<C, R, S> own ? own.context() : null;
        apply(machine, op.command(), context, entry.logTime(), index);
      } else if (asked instanceof Asked.Read<C, R, S> read) {
        // as of the leader's time when it sent the read, not of the last command: an idle
        // group's inspect would show every deadline with the idle time added back (issue 31)
        listener.answered(
            read.item().query(),
            read.context(),
            machine.query(read.item().query()),
            Math.max(machine.now(), entry.logTime()));
      } else if (asked instanceof Asked.Snapshot<C, R, S> snapshot) {
        listener.snapshotTaken(
            snapshot.context(),
            SnapshotFile.take(
                machine,
                term,
                index,
                entry.logTime(), // the save's time, not the last command's (issue 31)
                System.currentTimeMillis()));
      }
    }
    listener.batchEnded();
  }

  private void apply(
      SemaphoreMachine machine, Command command, @Nullable C context, long logTime, long index) {
    Outcome outcome;
    try {
      outcome = machine.apply(machine.revision() + 1, logTime, command);
    } catch (RuntimeException e) {
      // a bug in the machine, deterministic on every member: report, keep the group alive
      log.error("state machine failed applying {} at {}", command, index, e);
      return;
    }
    listener.applied(command, context, outcome, machine.now());
  }
}
