package io.semafor.client;

import io.semafor.ErrorCode;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Owned permits taken from a semaphore, given back by {@link #close()} (so try-with-resources
 * releases them) or automatically when the client's session ends, even if the process dies.
 *
 * <pre>{@code
 * try (Permit permit = client.semaphore("gpus").acquirePermit(1)) {
 *   train(permit.slots().get(0));
 * }
 * }</pre>
 *
 * <p>Thread-safe; releasing twice releases once.
 */
public final class Permit implements AutoCloseable {
  private final Rpc rpc;
  private final NamedSemaphore semaphore;
  private final long amount;
  private final List<Long> slots;
  private final long token;
  private final long sequence;
  private final AtomicBoolean released = new AtomicBoolean();

  Permit(
      Rpc rpc, NamedSemaphore semaphore, long amount, List<Long> slots, long token, long sequence) {
    this.rpc = rpc;
    this.semaphore = semaphore;
    this.amount = amount;
    this.slots = List.copyOf(slots);
    this.token = token;
    this.sequence = sequence;
  }

  /** The semaphore the permits came from. */
  public NamedSemaphore semaphore() {
    return semaphore;
  }

  /** How many permits. */
  public long amount() {
    return amount;
  }

  /**
   * The slot numbers the permits hold (docs/semantics.md#slots: on a semaphore with a capacity, the
   * lowest free in 1..capacity); empty on a semaphore without one.
   */
  public List<Long> slots() {
    return slots;
  }

  /**
   * The fencing token of the grant: larger than any earlier grant's on this semaphore, so a
   * resource can refuse a holder whose permits have since been given to someone else.
   */
  public long token() {
    return token;
  }

  /** The request's arrival sequence number: grants are made in this order. */
  public long sequence() {
    return sequence;
  }

  /** Whether {@link #release()} has been called. */
  public boolean isReleased() {
    return released.get();
  }

  /**
   * Gives the permits back now. Idempotent. If the semaphore was deleted or the session ended,
   * there is nothing to give back and this returns quietly.
   *
   * @throws SemaforException if the server refused for another reason, or did not answer
   */
  public void release() {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    try {
      for (Request.Builder request : releaseRequests()) {
        rpc.call(request);
      }
    } catch (SemaforException e) {
      ignoreGone(e);
    }
  }

  /** {@link #release()}, completing when the server has taken the permits back. */
  public CompletableFuture<Void> releaseAsync() {
    if (!released.compareAndSet(false, true)) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (Request.Builder request : releaseRequests()) {
      chain = chain.thenCompose(ignored -> rpc.callAsync(request).thenApply(r -> (Void) null));
    }
    return chain.exceptionally(
        failure -> {
          RuntimeException e = Rpc.unwrap(failure);
          if (e instanceof SemaforException s) {
            ignoreGone(s);
            return null;
          }
          throw e;
        });
  }

  /** One release of the amount, or one per slot so the right slots are freed. */
  private List<Request.Builder> releaseRequests() {
    if (slots.isEmpty()) {
      return List.of(semaphore.requests().release(amount));
    }
    List<Request.Builder> requests = new ArrayList<>();
    for (long slot : slots) {
      requests.add(semaphore.requests().releaseSlot(slot));
    }
    return requests;
  }

  private static void ignoreGone(SemaforException e) {
    if (e.code() != ErrorCode.NOT_FOUND && e.code() != ErrorCode.SESSION_EXPIRED) {
      throw e;
    }
  }

  /** Same as {@link #release()}. */
  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "Permit["
        + semaphore.name()
        + " x"
        + amount
        + (slots.isEmpty() ? "" : " slots " + slots)
        + ", token "
        + token
        + "]";
  }
}
