package io.semafor.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The future of an asynchronous waiting call (docs/semantics.md#cancelled-waits), whose outcome is
 * decided exactly once: by its caller ({@link #cancel}, {@link #complete}, {@link
 * #completeExceptionally}, and what builds on them: {@link #orTimeout}, {@link #completeOnTimeout},
 * {@link #completeAsync}; {@code obtrude*} is refused), or by the client as it starts handing a
 * grant over ({@link #startHanding}). Whoever decides first wins; the other fails and returns
 * false.
 *
 * <p>Why: handing a grant over can run the caller's code (a WaitMany report calls the list's
 * callbacks) before the future completes. A plain {@link CompletableFuture} could be cancelled in
 * between, and the caller would hold a cancelled future and a grant its callback was told of: the
 * test harness found it ({@code CancelRaceTest}, a WaitMany {@code awaitAsync} whose future was
 * cancelled as its report was being delivered). Here a {@code cancel} that returns true means the
 * grant was not reported and is given back; one that comes once the handing started returns false,
 * and the future completes with the grant an instant later.
 *
 * <p>Thread-safe. Dependent stages are plain futures.
 */
final class GrantFuture<T> extends CompletableFuture<T> {
  private final AtomicBoolean decided = new AtomicBoolean();

  /**
   * Cancels the call unless the grant is being handed over: returns false then, and the future
   * completes with it shortly.
   */
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    return decided.compareAndSet(false, true)
        ? super.cancel(mayInterruptIfRunning)
        : isCancelled(); // as CompletableFuture: cancelling a cancelled future succeeds
  }

  /** Completes with {@code value} unless the outcome was decided already. */
  @Override
  public boolean complete(T value) {
    return decided.compareAndSet(false, true) && super.complete(value);
  }

  /** Fails with {@code failure} unless the outcome was decided already. */
  @Override
  public boolean completeExceptionally(Throwable failure) {
    return decided.compareAndSet(false, true) && super.completeExceptionally(failure);
  }

  /**
   * Completes with what {@code supplier} gives, on {@code executor}, unless the outcome was decided
   * first: through {@link #complete}, which the JDK's own {@code completeAsync} bypasses.
   */
  @Override
  public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
    executor.execute(
        () -> {
          try {
            complete(supplier.get());
          } catch (RuntimeException | Error e) {
            completeExceptionally(e);
          }
        });
    return this;
  }

  /** {@link #completeAsync(Supplier, Executor)} on the default executor. */
  @Override
  public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
    return completeAsync(supplier, defaultExecutor());
  }

  /**
   * Refused: a waiting call's outcome is decided once, and forcing another would hide a grant.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public void obtrudeValue(T value) {
    throw new UnsupportedOperationException("a waiting call's outcome is decided once");
  }

  /**
   * Refused, as {@link #obtrudeValue}.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public void obtrudeException(Throwable failure) {
    throw new UnsupportedOperationException("a waiting call's outcome is decided once");
  }

  /** Dependent stages are plain futures: only this one gates its outcome. */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }

  /**
   * The client decides: it is about to hand a grant over. Returns false if the caller decided first
   * (cancelled, completed or timed the future out): the grant is then to be given back. After true,
   * exactly one of {@link #handOver} and {@link #handingFailed} is called.
   */
  boolean startHanding() {
    return decided.compareAndSet(false, true);
  }

  /** Completes a future whose handing was started. */
  void handOver(T value) {
    super.complete(value);
  }

  /** Fails a future whose handing was started (making the value failed). */
  void handingFailed(Throwable failure) {
    super.completeExceptionally(failure);
  }
}
