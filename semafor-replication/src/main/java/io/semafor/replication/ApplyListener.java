package io.semafor.replication;

import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import org.jspecify.annotations.Nullable;

/**
 * Receives what the replicator applied, in apply order, on the applying thread, never concurrently.
 * Must not block: it routes answers and arms timers.
 */
public interface ApplyListener {

  /**
   * A command was applied.
   *
   * @param context what {@link Replicator#submit} was given
   * @param logTime the log time the command was applied at
   */
  void applied(Command command, @Nullable Object context, Outcome outcome, long logTime);

  /** A query was answered. */
  void answered(Query query, @Nullable Object context, Reply reply, long logTime);

  /** A batch of commands ends here: a good moment to flush what was written. */
  default void batchEnded() {}
}
