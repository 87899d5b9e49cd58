package io.semafor.client;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import io.semafor.client.internal.HeldAnswer;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.Granted;
import io.semafor.protocol.v1.LeaseGranted;
import io.semafor.protocol.v1.Response;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A handle on one named semaphore. Making a handle does no I/O and does not check the semaphore
 * exists; operations on a name that names nothing fail with {@link ErrorCode#NOT_FOUND}.
 *
 * <p>Three ways to take permits, as docs/semantics.md#takes and #owned define them:
 *
 * <ul>
 *   <li>{@link #decrement}: IRIS's partial take — whatever is there up to the amount, waiting while
 *       the value is 0. Consumed: give back with {@link #increment}.
 *   <li>{@link #acquire} / {@link #tryAcquire}: all-or-nothing (SysV, JDK). Consumed likewise.
 *   <li>{@link #acquirePermit} / {@link #tryAcquirePermit}: all-or-nothing and <em>owned</em>: a
 *       {@link Permit} gives them back when closed, and they come back by themselves if the
 *       client's session ends.
 * </ul>
 *
 * <p>Grants are made in arrival order (FIFO unless the semaphore is BARGING). Blocking methods that
 * wait throw {@link InterruptedException} when interrupted, here and in every other waiting call of
 * the client ({@link Semop}, {@link WaitMany}, {@link SemaforSemaphore}): the request is withdrawn
 * from the server's queue, so it holds back no one, and anything granted before the withdrawal
 * arrived is given back. Every blocking method has an asynchronous form whose future completes on a
 * client thread: do not block in its callbacks.
 *
 * <p>Thread-safe. Failures are {@link SemaforException}s carrying the code of
 * docs/semantics.md#errors.
 */
public final class NamedSemaphore {
  private final Rpc rpc;
  private final String name;
  private final SemaphoreRequests requests;

  NamedSemaphore(Rpc rpc, String name) {
    this.rpc = rpc;
    this.name = name;
    this.requests = new SemaphoreRequests(name);
  }

  /** The semaphore's name. */
  public String name() {
    return name;
  }

  /** The wire requests of its operations. */
  SemaphoreRequests requests() {
    return requests;
  }

  // ------------------------------------------------------------------ lifecycle and value

  /**
   * Creates it with {@code initial} permits and default options; see {@link #create(long,
   * SemaphoreOptions)}.
   */
  public boolean create(long initial) {
    return create(initial, SemaphoreOptions.DEFAULT);
  }

  /**
   * Creates the semaphore, or opens it if it exists, leaving its value and options as they are
   * (IRIS). Returns true if it was created now.
   */
  public boolean create(long initial, SemaphoreOptions options) {
    return rpc.call(requests.create(initial, options)).getCreated().getCreated();
  }

  /**
   * {@link #create(long, SemaphoreOptions)} without blocking: the future completes with true if the
   * semaphore was created now, false if it existed (left as it was), on a client thread (do not
   * block in its callbacks), or exceptionally with the {@link SemaforException} the blocking form
   * would throw (UNAVAILABLE, outcome unknown, if the client is closed or no server answers in
   * time). Cancelling the future does not withdraw the request, which does not wait. Thread-safe.
   */
  public CompletableFuture<Boolean> createAsync(long initial, SemaphoreOptions options) {
    return rpc.callAsync(requests.create(initial, options))
        .thenApply(r -> r.getCreated().getCreated());
  }

  /**
   * Checks that the semaphore exists (IRIS {@code Open}).
   *
   * @throws SemaforException NOT_FOUND if it does not
   */
  public NamedSemaphore open() {
    info();
    return this;
  }

  /**
   * {@link #open()} without blocking: the future completes with this handle if the semaphore
   * exists, on a client thread (do not block in its callbacks), or exceptionally with NOT_FOUND if
   * it does not, or UNAVAILABLE if the client is closed or no server answers in time. A read:
   * cancelling the future stops it. Thread-safe.
   */
  public CompletableFuture<NamedSemaphore> openAsync() {
    return infoAsync().thenApply(info -> this);
  }

  /** Deletes it: everyone waiting on it gets {@link ErrorCode#DELETED}. */
  public void delete() {
    rpc.call(requests.delete());
  }

  /**
   * {@link #delete()} without blocking: the future completes once the semaphore is deleted (its
   * waiters answered DELETED), on a client thread (do not block in its callbacks), or exceptionally
   * with the {@link SemaforException} the blocking form would throw (UNAVAILABLE, outcome unknown,
   * if the client is closed or no server answers in time). Cancelling the future does not withdraw
   * the request, which does not wait. Thread-safe.
   */
  public CompletableFuture<Void> deleteAsync() {
    return rpc.callAsync(requests.delete()).thenApply(r -> null);
  }

  /** The free value now. */
  public long value() {
    return info().value();
  }

  /**
   * {@link #value()} without blocking: the future completes with the free value (a read: nothing is
   * logged), on a client thread (do not block in its callbacks), or exceptionally with the {@link
   * SemaforException} the blocking form would throw (UNAVAILABLE if the client is closed or no
   * server answers in time). A read: cancelling the future stops it. Thread-safe.
   */
  public CompletableFuture<Long> valueAsync() {
    return infoAsync().thenApply(SemaphoreInfo::value);
  }

  /** Value, options, and how much is waiting, owned, leased and in transit. */
  public SemaphoreInfo info() {
    return Infos.status(rpc.read(requests.get()));
  }

  /**
   * {@link #info()} without blocking: the future completes with the value, options and counts (a
   * read: nothing is logged), on a client thread (do not block in its callbacks), or exceptionally
   * with the {@link SemaforException} the blocking form would throw (UNAVAILABLE if the client is
   * closed or no server answers in time). A read: cancelling the future stops it. Thread-safe.
   */
  public CompletableFuture<SemaphoreInfo> infoAsync() {
    return rpc.readAsync(requests.get()).thenApply(Infos::status);
  }

  /**
   * Watches this semaphore: its state, then every change, pushed by the server (see {@link
   * SemaforClient#watch} and {@link SemaphoreWatch}). Returns at once; close the watch to stop it.
   */
  public SemaphoreWatch watch(SemaphoreWatch.Listener listener) {
    return new SemaphoreWatch(rpc.link().config(), name, false, 0, false, listener).start();
  }

  /**
   * {@link #info()} with the whole queue (arrival order), every holder (session id order) and every
   * lease (permit id order), read page by page; see {@link #inspect(int)}.
   */
  public SemaphoreInfo inspect() {
    return inspect(Integer.MAX_VALUE);
  }

  /**
   * {@link #info()} with the first {@code maxPerList} entries of the queue (arrival order), the
   * holders (session id order) and the leases (permit id order).
   *
   * <p>Blocks for one read per page (a page carries up to 4,096 entries of each list and stays
   * within the frame limit), each waiting at most the client's answer timeout. The pages are read
   * while the semaphore keeps changing, so the result is not a snapshot: an entry present
   * throughout is shown exactly once and in order, one that arrives or leaves meanwhile may or may
   * not be; the summary and {@code revision} are the last page's.
   *
   * @throws IllegalArgumentException if {@code maxPerList} is not positive
   * @throws SemaforException NOT_FOUND if there is no such semaphore (also if it is deleted between
   *     pages); UNAVAILABLE if a page is not answered in time
   */
  public SemaphoreInfo inspect(int maxPerList) {
    Inspection inspection = new Inspection(requests.name(), maxPerList);
    boolean done = false;
    while (!done) { // every page shows at least one entry of a list that is not done
      done = inspection.take(rpc.read(inspection.nextRead()));
    }
    return inspection.result();
  }

  /** {@link #inspect()} without blocking; the future fails as that method throws. */
  public CompletableFuture<SemaphoreInfo> inspectAsync() {
    return inspectAsync(Integer.MAX_VALUE);
  }

  /**
   * {@link #inspect(int)} without blocking: the future completes on a client thread once the last
   * page is read, or fails with the {@link SemaforException} of the first page that failed.
   *
   * @throws IllegalArgumentException if {@code maxPerList} is not positive
   */
  public CompletableFuture<SemaphoreInfo> inspectAsync(int maxPerList) {
    return follow(new Inspection(requests.name(), maxPerList));
  }

  private CompletableFuture<SemaphoreInfo> follow(Inspection inspection) {
    return rpc.readAsync(inspection.nextRead())
        .thenCompose(
            answer ->
                inspection.take(answer)
                    ? CompletableFuture.completedFuture(inspection.result())
                    : follow(inspection));
  }

  /**
   * One page of the inspection: the summary, and from each list the entries after {@code from}'s
   * position in it, at most {@code limit} of each (fewer when the page reaches the frame's budget;
   * at least one while any list has more). Pass the page's {@link InspectionPage#next()} as the
   * next {@code from} until {@link InspectionPage#complete()}; a list whose position is {@link
   * Long#MAX_VALUE} is skipped. Blocks for one read, at most the client's answer timeout.
   *
   * @param limit entries per list: 0 for the server's default (1,000), at most 4,096 (more is taken
   *     as 4,096)
   * @throws SemaforException NOT_FOUND if there is no such semaphore; INVALID_ARGUMENT for a
   *     negative limit or position; UNAVAILABLE if it is not answered in time
   */
  public InspectionPage inspectPage(InspectionCursor from, int limit) {
    return Infos.page(rpc.read(Inspection.pageRead(requests.name(), from, limit)));
  }

  /** {@link #inspectPage} without blocking; the future fails as that method throws. */
  public CompletableFuture<InspectionPage> inspectPageAsync(InspectionCursor from, int limit) {
    return rpc.readAsync(Inspection.pageRead(requests.name(), from, limit)).thenApply(Infos::page);
  }

  /** Writes the free value (what sessions own or lease is untouched); returns the previous one. */
  public long set(long value) {
    return rpc.call(requests.set(value)).getValueSet().getPrevious();
  }

  /**
   * {@link #set(long)} without blocking: the future completes with the previous value, on a client
   * thread (do not block in its callbacks), or exceptionally with the {@link SemaforException} the
   * blocking form would throw (UNAVAILABLE, outcome unknown, if the client is closed or no server
   * answers in time). Cancelling the future does not withdraw the request, which does not wait.
   * Thread-safe.
   */
  public CompletableFuture<Long> setAsync(long value) {
    return rpc.callAsync(requests.set(value)).thenApply(r -> r.getValueSet().getPrevious());
  }

  /**
   * Adds {@code amount} and returns the new value. Anyone may increment: semaphores have no owner.
   *
   * @throws SemaforException OVERFLOW past the capacity or 2^63-1 (nothing changed)
   */
  public long increment(long amount) {
    return rpc.call(requests.increment(amount)).getIncremented().getValue();
  }

  /**
   * {@link #increment(long)} without blocking: the future completes with the value right after the
   * add, on a client thread (do not block in its callbacks), or exceptionally with the {@link
   * SemaforException} the blocking form would throw (UNAVAILABLE, outcome unknown, if the client is
   * closed or no server answers in time). Cancelling the future does not withdraw the request,
   * which does not wait. Thread-safe.
   */
  public CompletableFuture<Long> incrementAsync(long amount) {
    return rpc.callAsync(requests.increment(amount)).thenApply(r -> r.getIncremented().getValue());
  }

  // ------------------------------------------------------------------ partial decrement (IRIS)

  /**
   * Waits as long as it takes; see {@link #decrement(long, Duration)}.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn from the
   *     server's queue and a grant that raced the withdrawal is given back, so nothing is left
   *     queued or taken
   */
  public long decrement(long amount) throws InterruptedException {
    return decrement(amount, -1);
  }

  /**
   * IRIS decrement: when it is this request's turn and the value is positive, takes {@code
   * min(value, amount)} and returns it; while the value is 0 it waits, up to {@code timeout}
   * ({@link Duration#ZERO}: not at all). Returns 0 if it timed out. The amount is consumed. Blocks
   * the calling thread while it waits.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn from the
   *     server's queue and a grant that raced the withdrawal is given back, so nothing is left
   *     queued or taken
   */
  public long decrement(long amount, Duration timeout) throws InterruptedException {
    return decrement(amount, Rpc.timeoutNanos(timeout));
  }

  private long decrement(long amount, long timeoutNanos) throws InterruptedException {
    Response r =
        rpc.callWaiting(requests.decrement(amount, timeoutNanos), timeoutNanos, this::giveBack);
    return r.getGranted().getAmount();
  }

  /**
   * {@link #decrement(long, Duration)}, completing the future instead of blocking. Cancelling the
   * future withdraws the request from the server, and a grant that raced the withdrawal is given
   * back (docs/semantics.md#cancelled-waits).
   */
  public CompletableFuture<Long> decrementAsync(long amount, Duration timeout) {
    return rpc.callWaitingAsync(
        requests.decrement(amount, Rpc.timeoutNanos(timeout)),
        this::giveBack,
        r -> r.getGranted().getAmount());
  }

  /** Undoes a consumed grant that raced with an interrupt. */
  private void giveBack(Response granted) {
    long amount = granted.getGranted().getAmount();
    if (amount > 0) {
      increment(amount);
    }
  }

  // ------------------------------------------------------------------ all-or-nothing, consumed

  /**
   * Takes exactly {@code amount}, waiting as long as it takes. Consumed.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn from the
   *     server's queue and a grant that raced the withdrawal is given back, so nothing is left
   *     queued or taken
   */
  public void acquire(long amount) throws InterruptedException {
    acquire(amount, -1);
  }

  /**
   * Takes exactly {@code amount} once that many are free and it is this request's turn, waiting up
   * to {@code timeout}; returns false (having taken nothing) if it timed out. Under FIFO even
   * {@link Duration#ZERO} waits its turn behind a blocked earlier request, unlike {@code
   * java.util.concurrent.Semaphore.tryAcquire()}. Consumed: give back with {@link #increment}.
   * Blocks the calling thread while it waits.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn from the
   *     server's queue and a grant that raced the withdrawal is given back, so nothing is left
   *     queued or taken
   */
  public boolean tryAcquire(long amount, Duration timeout) throws InterruptedException {
    return acquire(amount, Rpc.timeoutNanos(timeout));
  }

  private boolean acquire(long amount, long timeoutNanos) throws InterruptedException {
    Response r =
        rpc.callWaiting(
            requests.acquire(amount, timeoutNanos, false), timeoutNanos, this::giveBack);
    return r.getGranted().getAmount() > 0;
  }

  /**
   * {@link #tryAcquire}, completing the future instead of blocking. Cancelling the future withdraws
   * the request from the server, and a grant that raced the withdrawal is given back
   * (docs/semantics.md#cancelled-waits).
   */
  public CompletableFuture<Boolean> acquireAsync(long amount, Duration timeout) {
    return rpc.callWaitingAsync(
        requests.acquire(amount, Rpc.timeoutNanos(timeout), false),
        this::giveBack,
        r -> r.getGranted().getAmount() > 0);
  }

  // ------------------------------------------------------------------ owned permits

  /**
   * Takes {@code amount} owned permits, waiting as long as it takes.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn from the
   *     server's queue and a grant that raced the withdrawal is given back, so nothing is left
   *     queued or taken
   */
  public Permit acquirePermit(long amount) throws InterruptedException {
    Permit permit = acquirePermit(amount, -1);
    if (permit == null) {
      throw new IllegalStateException("a wait without timeout ended without a grant");
    }
    return permit;
  }

  /**
   * Takes {@code amount} owned permits, waiting up to {@code timeout}; null if it timed out. The
   * permits are the session's: {@link Permit#close()} gives them back, and so does the session's
   * end. Blocks the calling thread while it waits.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn from the
   *     server's queue and a grant that raced the withdrawal is given back, so nothing is left
   *     queued or taken
   * @throws SemaforException ALREADY_HELD past the semaphore's {@code maxPerSession}
   */
  public @Nullable Permit tryAcquirePermit(long amount, Duration timeout)
      throws InterruptedException {
    return acquirePermit(amount, Rpc.timeoutNanos(timeout));
  }

  private @Nullable Permit acquirePermit(long amount, long timeoutNanos)
      throws InterruptedException {
    Response r =
        rpc.callWaiting(requests.acquire(amount, timeoutNanos, true), timeoutNanos, this::release);
    return permit(r.getGranted());
  }

  /**
   * {@link #tryAcquirePermit}, completing the future instead of blocking. Cancelling the future
   * withdraws the request from the server, and permits granted before the withdrawal arrived are
   * released (docs/semantics.md#cancelled-waits).
   */
  public CompletableFuture<Optional<Permit>> acquirePermitAsync(long amount, Duration timeout) {
    return rpc.callWaitingAsync(
        requests.acquire(amount, Rpc.timeoutNanos(timeout), true),
        this::release,
        r -> Optional.ofNullable(permit(r.getGranted())));
  }

  /** Undoes an owned grant that raced a cancellation. */
  private void release(Response granted) {
    Permit undone = permit(granted.getGranted());
    if (undone != null) {
      undone.release();
    }
  }

  private @Nullable Permit permit(Granted g) {
    if (g.getAmount() == 0) {
      return null;
    }
    return new Permit(rpc, this, g.getAmount(), g.getSlotsList(), g.getToken(), g.getSequence());
  }

  /**
   * Gives back {@code amount} of what this client's session owns here (taken with {@link
   * #acquirePermit} or an owned {@code semop}).
   *
   * @throws SemaforException INVALID_ARGUMENT if the session owns less (nothing changed)
   */
  public void release(long amount) {
    rpc.call(requests.release(amount));
  }

  /**
   * {@link #release(long)} without blocking: the future completes once the owned permits are given
   * back, on a client thread (do not block in its callbacks), or exceptionally with the {@link
   * SemaforException} the blocking form would throw (UNAVAILABLE, outcome unknown, if the client is
   * closed or no server answers in time). Cancelling the future does not withdraw the request,
   * which does not wait. Thread-safe.
   */
  public CompletableFuture<Void> releaseAsync(long amount) {
    return rpc.callAsync(requests.release(amount)).thenApply(r -> null);
  }

  // ------------------------------------------------------------------ leases

  /**
   * Takes {@code amount} permits as a lease that ends {@code leaseTtl} after it is granted unless
   * renewed, waiting as long as it takes. Returns once the lease is delivered, as {@link
   * #acquireLease(long, Duration, Duration)} does.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn, and a
   *     lease granted before the withdrawal arrived is released
   * @throws SemaforException as {@link #acquireLease(long, Duration, Duration)}
   */
  public Lease acquireLease(long amount, Duration leaseTtl) throws InterruptedException {
    Lease lease =
        acquireLease(amount, leaseTtl, java.time.temporal.ChronoUnit.FOREVER.getDuration());
    if (lease == null) {
      throw new IllegalStateException("a wait without a timeout ended without a lease");
    }
    return lease;
  }

  /**
   * Takes {@code amount} permits as a lease that ends {@code leaseTtl} after it is granted unless
   * renewed, waiting up to {@code timeout}; null if it timed out.
   *
   * <p>Returns only once the lease is <em>delivered</em>: the server has this client's
   * acknowledgement of the grant (one more round trip), so from then on the lease outlives this
   * client's session and process (docs/semantics.md#leases). Until then a lease is in transit and
   * goes back if the session ends.
   *
   * @throws InterruptedException if interrupted while waiting: the request is withdrawn, and a
   *     lease granted before the withdrawal arrived is released, so nothing is left queued or held
   *     <p>A lease granted but not handed over — its delivery could not be confirmed, or the client
   *     was closed first — is released, never left to its TTL (docs/semantics.md#cancelled-waits).
   * @throws SemaforException NOT_FOUND, INVALID_ARGUMENT (a TTL out of range), DELETED if the
   *     semaphore was deleted while it waited; SESSION_EXPIRED or UNAVAILABLE if the delivery could
   *     not be confirmed (the message names the permit id and says whether it was released: only if
   *     releasing failed too may it live on, see {@link SemaforClient#lease(long)}); UNAVAILABLE if
   *     the client was closed while it waited
   */
  public @Nullable Lease acquireLease(long amount, Duration leaseTtl, Duration timeout)
      throws InterruptedException {
    long timeoutNanos = Rpc.timeoutNanos(timeout);
    try (HeldAnswer held =
        rpc.callHeld(
            requests.lease(amount, leaseTtl, timeoutNanos), timeoutNanos, this::releaseLease)) {
      Lease lease = lease(held.answer().getLeaseGranted());
      if (lease != null) {
        try {
          rpc.awaitAcknowledged();
        } catch (InterruptedException e) {
          held.giveBack(); // as if the interrupt had come a moment earlier
          throw e;
        } catch (SemaforException e) {
          // the caller is told it has no lease, so the lease is released (from whichever session
          // is up; releasing one that went back with the session is a no-op)
          boolean released = held.giveBack();
          throw undelivered(
              lease.permitId(),
              e,
              released
                  ? "it was released"
                  : "releasing it failed too: it ends at its TTL unless released");
        }
      }
      held.take();
      return lease;
    }
  }

  /**
   * {@link #acquireLease}, completing the future (on a client thread) once the lease is granted and
   * delivered, or with an empty optional if it timed out. Cancelling the future withdraws the
   * request from the server, and a lease granted before the withdrawal arrived, or whose delivery
   * was still being confirmed, is released; so is one whose delivery could not be confirmed (the
   * future then fails as {@link #acquireLease} throws), and one granted as the client was closed
   * (the future fails with UNAVAILABLE): docs/semantics.md#cancelled-waits.
   */
  public CompletableFuture<Optional<Lease>> acquireLeaseAsync(
      long amount, Duration leaseTtl, Duration timeout) {
    long epoch = rpc.sessionEpoch(); // a lease read after this session ended is not confirmed
    return rpc.callWaitingAsync(
        requests.lease(amount, leaseTtl, Rpc.timeoutNanos(timeout)),
        this::releaseLease,
        r ->
            r.getLeaseGranted().getPermitId() == 0
                ? CompletableFuture.completedFuture(null)
                : rpc.acknowledgedAsync(epoch),
        r -> Optional.ofNullable(lease(r.getLeaseGranted())),
        (r, e) ->
            new Rpc.Unreported(
                undelivered(
                    r.getLeaseGranted().getPermitId(),
                    e,
                    "it is being released (see SemaforClient.lease if that fails too)"),
                true));
  }

  /**
   * What a lease's caller is told when the lease was granted but its delivery could not be
   * confirmed ({@code e}): its id, the reason, and what became of it ({@code outcome}).
   */
  private static SemaforException undelivered(long permitId, SemaforException e, String outcome) {
    return new SemaforException(
        e.code(),
        "lease "
            + permitId
            + " granted, its delivery not confirmed ("
            + e.getMessage()
            + "): "
            + outcome,
        e);
  }

  /** Releases a lease granted to a caller that will not get it. */
  private void releaseLease(Response granted) {
    Lease undone = lease(granted.getLeaseGranted());
    if (undone != null) {
      undone.release();
    }
  }

  private @Nullable Lease lease(LeaseGranted g) {
    if (g.getPermitId() == 0) {
      return null;
    }
    return new Lease(
        rpc, g.getPermitId(), name, g.getAmount(), g.getSlotsList(), g.getToken(), g.getSequence());
  }

  // ------------------------------------------------------------------ wait for zero

  /**
   * Waits until the value is 0 (SysV wait-for-zero), consuming nothing.
   *
   * @throws InterruptedException if interrupted while waiting: the wait is withdrawn from the
   *     server
   */
  public void awaitZero() throws InterruptedException {
    awaitZero(-1);
  }

  /**
   * Waits up to {@code timeout} for the value to be 0; returns whether it was. Blocks the calling
   * thread while it waits.
   *
   * @throws InterruptedException if interrupted while waiting: the wait is withdrawn from the
   *     server
   */
  public boolean awaitZero(Duration timeout) throws InterruptedException {
    return awaitZero(Rpc.timeoutNanos(timeout));
  }

  private boolean awaitZero(long timeoutNanos) throws InterruptedException {
    return rpc.callWaiting(requests.awaitZero(timeoutNanos), timeoutNanos, r -> {})
        .getZeroReached()
        .getReached();
  }

  /**
   * {@link #awaitZero(Duration)}, completing the future instead of blocking; cancelling the future
   * withdraws the wait from the server.
   */
  public CompletableFuture<Boolean> awaitZeroAsync(Duration timeout) {
    return rpc.callWaitingAsync(
        requests.awaitZero(Rpc.timeoutNanos(timeout)),
        r -> {},
        r -> r.getZeroReached().getReached());
  }

  @Override
  public String toString() {
    return "NamedSemaphore[" + name + "]";
  }
}
