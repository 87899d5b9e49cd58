package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.SemopDone;
import io.semafor.protocol.v1.SemopOp;
import io.semafor.protocol.v1.Slots;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A SysV {@code semop}: operations over any semaphores that take effect together, in one atomic
 * step, or not at all (docs/semantics.md#semop). Ops are tried in the order added, on a scratch
 * copy, so a name may repeat and a wait-for-zero sees what earlier ops left.
 *
 * <pre>{@code
 * Semop.Result r = client.semop().take("printer", 1).take("scanner", 1).owned().execute();
 * }</pre>
 *
 * <p>{@link #noWait()} and {@link #owned()} apply to the op added last. Not thread-safe: build and
 * execute on one thread; executing does not consume the builder.
 */
public final class Semop {
  private final Rpc rpc;
  private final List<SemopOp.Builder> ops = new ArrayList<>();

  Semop(Rpc rpc) {
    this.rpc = rpc;
  }

  /** What a {@code semop} did; {@code slots} lists, per op, the slots its owned take holds. */
  public record Result(boolean done, long token, long sequence, List<List<Long>> slots) {
    /** Copies the slots. */
    public Result {
      slots = slots.stream().map(List::copyOf).toList();
    }
  }

  /** Takes {@code amount} from {@code name}, all-or-nothing. */
  public Semop take(String name, long amount) {
    return op(name, -amount);
  }

  /** Adds {@code amount} to {@code name}. */
  public Semop add(String name, long amount) {
    return op(name, amount);
  }

  /** Waits for {@code name} to be 0 (as left by the ops before this one). */
  public Semop waitForZero(String name) {
    return op(name, 0);
  }

  private Semop op(String name, long delta) {
    ops.add(
        SemopOp.newBuilder()
            .setName(ByteString.copyFrom(name, StandardCharsets.UTF_8))
            .setDelta(delta));
    return this;
  }

  /**
   * The last op fails the whole {@code semop} with WOULD_BLOCK instead of waiting (SysV {@code
   * IPC_NOWAIT}).
   */
  public Semop noWait() {
    last().setNoWait(true);
    return this;
  }

  /**
   * The last op is recorded for undo when the session ends (SysV {@code SEM_UNDO}): a take goes
   * back, an add is taken back.
   */
  public Semop owned() {
    last().setOwned(true);
    return this;
  }

  private SemopOp.Builder last() {
    if (ops.isEmpty()) {
      throw new IllegalStateException("no op added yet");
    }
    return ops.get(ops.size() - 1);
  }

  /**
   * Executes, waiting as long as it takes: the result is always done.
   *
   * @throws InterruptedException if interrupted while waiting; see {@link #execute(Duration)}
   * @throws SemaforException as for {@link #execute(Duration)}
   */
  public Result execute() throws InterruptedException {
    return execute(-1);
  }

  /**
   * Executes, waiting up to {@code timeout} ({@link Duration#ZERO}: not at all); {@code done} is
   * false if it timed out, and then nothing changed. Blocks the calling thread while it waits.
   *
   * <p>An interrupt while it waits withdraws it from the server's queue, so it holds back no one,
   * and throws InterruptedException, as every waiting call of the client does. If it took effect
   * before the withdrawal arrived, it is undone first: its inverse (every add taken back, every
   * take given back, in reverse order) is applied in one step. Only if that inverse cannot be
   * applied at once — what it added was taken since, an earlier waiter holds the inverse's takes
   * back, or a semaphore was deleted — does it return its done result instead, with the thread's
   * interrupt status set, so a caller never believes it holds what it does not, nor the reverse.
   *
   * @throws InterruptedException if interrupted while waiting (nothing of it is left applied or
   *     queued)
   * @throws SemaforException WOULD_BLOCK for a {@link #noWait()} op that would wait, OVERFLOW for
   *     an add past a ceiling, NOT_FOUND naming the op
   */
  public Result execute(Duration timeout) throws InterruptedException {
    return execute(Rpc.timeoutNanos(timeout));
  }

  private Result execute(long timeoutNanos) throws InterruptedException {
    List<Result> kept = new ArrayList<>(1);
    try {
      return result(
          rpc.callWaiting(
                  request(timeoutNanos),
                  timeoutNanos,
                  raced -> {
                    Result done = result(raced.getSemopDone());
                    if (done.done() && !undo()) {
                      kept.add(done);
                    }
                  })
              .getSemopDone());
    } catch (InterruptedException e) {
      if (kept.isEmpty()) {
        throw e;
      }
      Thread.currentThread().interrupt();
      return kept.get(0);
    }
  }

  /**
   * Applies the inverse of this {@code semop} at once, in one step; returns whether it did.
   * Wait-for-zero ops consumed nothing and have no inverse.
   */
  private boolean undo() {
    Semop inverse = new Semop(rpc);
    for (int i = ops.size() - 1; i >= 0; i--) {
      SemopOp.Builder op = ops.get(i);
      if (op.getDelta() != 0) {
        inverse.ops.add(op.clone().setDelta(-op.getDelta()).setNoWait(false));
      }
    }
    if (inverse.ops.isEmpty()) {
      return true;
    }
    try {
      return rpc.call(inverse.request(0)).getSemopDone().getDone();
    } catch (SemaforException e) {
      return false; // e.g. OVERFLOW, NOT_FOUND: it stays done
    }
  }

  /**
   * {@link #execute(Duration)}, completing the future instead of blocking. Cancelling the future
   * withdraws the {@code semop} from the server; if it took effect before the withdrawal arrived,
   * its inverse is applied (docs/semantics.md#cancelled-waits). A cancelled future has no result to
   * report an inverse that cannot be applied at once (see {@link #execute(Duration)}): use the
   * blocking form and an interrupt where that matters.
   */
  public CompletableFuture<Result> executeAsync(Duration timeout) {
    return rpc.callWaitingAsync(
        request(Rpc.timeoutNanos(timeout)),
        raced -> {
          if (raced.getSemopDone().getDone()) {
            undo();
          }
        },
        r -> result(r.getSemopDone()));
  }

  private Request.Builder request(long timeoutNanos) {
    io.semafor.protocol.v1.Semop.Builder semop =
        io.semafor.protocol.v1.Semop.newBuilder().setTimeoutNs(timeoutNanos);
    for (SemopOp.Builder op : ops) {
      semop.addOps(op.build());
    }
    return Request.newBuilder().setSemop(semop);
  }

  private static Result result(SemopDone done) {
    List<List<Long>> slots = new ArrayList<>();
    for (Slots s : done.getSlotsList()) {
      slots.add(s.getSlotsList());
    }
    return new Result(done.getDone(), done.getToken(), done.getSequence(), slots);
  }
}
