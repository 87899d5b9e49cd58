package io.semafor.replication;

import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.SemaphoreMachine;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process replicator: no log, one machine, commands applied one at a time in the order they
 * are queued.
 *
 * <p>It has no thread of its own. A submitting thread queues its command and, if no one is
 * applying, applies everything queued — its own command and any others — then lets go (flat
 * combining). So a request read on an I/O thread is normally applied on that same thread with no
 * hand-off, and under load one thread applies a whole batch while the others go back to their
 * sockets. Log time is this process's monotonic clock, stamped as each command is taken off the
 * queue, so it never runs backwards and an expiry is stamped no earlier than the timer that
 * proposed it fired.
 *
 * @param <C> what a command's asker gives ({@link Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
public final class LocalReplicator<C, R, S> implements Replicator<C, R, S> {
  private static final Logger log = LoggerFactory.getLogger(LocalReplicator.class);

  private final SemaphoreMachine machine;
  private final ApplyListener<C, R, S> listener;
  private final LongSupplier clock;
  private final long epoch;
  private final ConcurrentLinkedQueue<Task<C, R, S>> queue = new ConcurrentLinkedQueue<>();
  private final ReentrantLock applying = new ReentrantLock();
  private volatile boolean closed;
  private volatile @Nullable RuntimeException failure;

  /** Guarded by {@link #applying}. */
  private long revision;

  /**
   * A replicator over {@code machine}, whose log time is {@code clock} (monotonic nanoseconds)
   * counted from now, continuing after the machine's last log time.
   */
  public LocalReplicator(
      SemaphoreMachine machine, ApplyListener<C, R, S> listener, LongSupplier clock) {
    this.machine = machine;
    this.listener = listener;
    this.clock = clock;
    this.epoch = clock.getAsLong() - machine.now();
    this.revision = machine.revision();
  }

  /** A replicator over {@code machine} whose log time is {@link System#nanoTime()}. */
  public LocalReplicator(SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
    this(machine, listener, System::nanoTime);
  }

  /** What waits in the queue: one of the three kinds of request, with its asker's context. */
  private sealed interface Task<C, R, S> {}

  private record Submitted<C, R, S>(Command command, @Nullable C context)
      implements Task<C, R, S> {}

  private record Asked<C, R, S>(Query query, @Nullable R context) implements Task<C, R, S> {}

  private record SnapshotAsked<C, R, S>(@Nullable S context) implements Task<C, R, S> {}

  @Override
  public void submit(Command command, @Nullable C context) {
    enqueue(new Submitted<>(command, context));
  }

  @Override
  public void read(Query query, @Nullable R context) {
    enqueue(new Asked<>(query, context));
  }

  /**
   * Takes the snapshot on the applying thread, in queue order, at the log time it is reached (not
   * the last command's, so a restore keeps each deadline's time left then); no term or index on one
   * node.
   */
  @Override
  public void snapshot(@Nullable S context) {
    enqueue(new SnapshotAsked<>(context));
  }

  private void enqueue(Task<C, R, S> task) {
    RuntimeException broken = failure;
    if (broken != null) {
      throw new IllegalStateException(
          "the state machine failed; no command can be applied", broken);
    }
    if (closed) {
      throw new ReplicatorClosedException();
    }
    queue.offer(task);
    drain();
  }

  /**
   * Applies what is queued if no one else is applying. Re-checks the queue after letting go, so a
   * task queued while another thread was applying is never left behind.
   *
   * <p>Never re-entered: a task queued from inside the listener (a connection that became writable
   * while the batch's answers were being written, and asked for a read) waits for the batch under
   * way to end, and is applied by this same loop right after. Applying it there and then would run
   * a batch inside another's end: the inner batch wrote and cleared the outer one's answers while
   * the outer was writing them (an IndexOutOfBoundsException in the server's outbox, seen with a
   * watch sending 100,000 states). So a listener must never wait, inside a callback, for a task it
   * queued: it is applied only after the callback returns.
   */
  private void drain() {
    if (applying.isHeldByCurrentThread()) {
      return; // queued: the outer drain's loop takes it once its batch has ended
    }
    do {
      if (!applying.tryLock()) {
        return;
      }
      try {
        applyQueued();
      } finally {
        applying.unlock();
      }
    } while (!queue.isEmpty());
  }

  /**
   * The most tasks one batch applies before it ends: a batch's answers wait in the listener until
   * it ends, and while clients keep submitting, a thread that drains the queue would otherwise
   * never end one (and never write what it answered).
   */
  static final int MAX_BATCH = 256;

  private void applyQueued() {
    int inBatch = 0;
    for (Task<C, R, S> task = queue.poll(); task != null; task = queue.poll()) {
      if (++inBatch > MAX_BATCH) {
        listener.batchEnded();
        inBatch = 1;
      }
      long now = clock.getAsLong() - epoch;
      if (task instanceof Submitted<C, R, S> s) {
        Outcome outcome = apply(s.command(), now);
        listener.applied(s.command(), s.context(), outcome, now);
      } else if (task instanceof SnapshotAsked<C, R, S> s) {
        listener.snapshotTaken(
            s.context(), SnapshotFile.take(machine, -1, -1, now, System.currentTimeMillis()));
      } else if (task instanceof Asked<C, R, S> a) {
        Reply reply = machine.query(a.query());
        listener.answered(a.query(), a.context(), reply, now);
      }
    }
    if (inBatch > 0) {
      listener.batchEnded();
    }
  }

  private Outcome apply(Command command, long now) {
    try {
      return machine.apply(++revision, now, command);
    } catch (RuntimeException e) {
      // The machine changes nothing on a failed command, but an exception here is a bug whose
      // effect on the state cannot be known: stop rather than serve from a suspect state.
      failure = e;
      closed = true;
      log.error(
          "state machine failed applying {}; no further commands will be applied", command, e);
      throw e;
    }
  }

  @Override
  public long logTime() {
    return clock.getAsLong() - epoch;
  }

  @Override
  public void close() {
    closed = true;
    drain();
  }
}
