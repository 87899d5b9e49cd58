package io.semafor.replication.group;

import io.semafor.core.Command;
import io.semafor.replication.ApplyListener;
import org.jspecify.annotations.Nullable;

/**
 * An item this member put in (or is about to put in) an entry of the log, with what its asker gave
 * to route the answer, typed per kind as {@link ApplyListener} hands it back. Only the member that
 * asked holds these: the log carries the {@link #item}, never the context.
 *
 * <p>Immutable when its context is.
 *
 * @param <C> what a command's asker gave
 * @param <R> what a read's asker gave
 * @param <S> what a snapshot's asker gave
 */
public sealed interface Asked<C, R, S> {
  /** What goes in the entry. */
  Entry.Item item();

  /** Tells {@code listener} that this member will not carry it out (it does not lead). */
  void refuse(ApplyListener<C, R, S> listener, String leaderHint);

  /** A command, and who to answer. */
  record Op<C, R, S>(Entry.Op item, @Nullable C context) implements Asked<C, R, S> {
    /** The command {@code command} asked by {@code context}. */
    public static <C, R, S> Op<C, R, S> of(Command command, @Nullable C context) {
      return new Op<>(new Entry.Op(command), context);
    }

    @Override
    public void refuse(ApplyListener<C, R, S> listener, String leaderHint) {
      listener.refused(item.command(), context, leaderHint);
    }
  }

  /** A read, and who to answer. */
  record Read<C, R, S>(Entry.Read item, @Nullable R context) implements Asked<C, R, S> {
    @Override
    public void refuse(ApplyListener<C, R, S> listener, String leaderHint) {
      listener.readRefused(item.query(), context, leaderHint);
    }
  }

  /** A snapshot, and who to give it to. */
  record Snapshot<C, R, S>(Entry.Snapshot item, @Nullable S context) implements Asked<C, R, S> {
    @Override
    public void refuse(ApplyListener<C, R, S> listener, String leaderHint) {
      listener.snapshotRefused(context, leaderHint);
    }
  }
}
