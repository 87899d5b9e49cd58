package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.ReleaseLease;
import io.semafor.protocol.v1.RenewLease;
import io.semafor.protocol.v1.Request;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Permits with their own expiry, named by a permit id that any process may use to renew or release
 * them (docs/semantics.md#leases, the Redis seed). A lease ends at its TTL unless renewed, measured
 * on the server's clock: client clocks never matter. Once <em>delivered</em> — the server has the
 * client's acknowledgement of its grant — a lease outlives the session that asked for it, and the
 * process (docs/semantics.md#delivery); until then it goes back if the session ends. {@link
 * NamedSemaphore#acquireLease} returns a lease only once it is delivered.
 *
 * <p>A lease obtained by {@link SemaforClient#lease(long)} knows only its permit id. Thread-safe.
 */
public final class Lease {
  private final Rpc rpc;
  private final long permitId;
  private final String semaphore;
  private final long amount;
  private final List<Long> slots;
  private final long token;
  private final long sequence;

  Lease(
      Rpc rpc,
      long permitId,
      String semaphore,
      long amount,
      List<Long> slots,
      long token,
      long sequence) {
    this.rpc = rpc;
    this.permitId = permitId;
    this.semaphore = semaphore;
    this.amount = amount;
    this.slots = List.copyOf(slots);
    this.token = token;
    this.sequence = sequence;
  }

  /** The id any process can renew or release this lease by. */
  public long permitId() {
    return permitId;
  }

  /** The semaphore's name; empty for a lease known only by its id. */
  public String semaphoreName() {
    return semaphore;
  }

  /** How many permits; 0 if known only by id. */
  public long amount() {
    return amount;
  }

  /** The slots the permits hold; empty if none or known only by id. */
  public List<Long> slots() {
    return slots;
  }

  /** The grant's fencing token; 0 if known only by id. */
  public long token() {
    return token;
  }

  /**
   * The request's place in the server's one arrival order (docs/semantics.md#arrival-order), as
   * {@link Permit#sequence()}; 0 if known only by id.
   */
  public long sequence() {
    return sequence;
  }

  /**
   * Moves the lease's end to {@code ttl} from now (on the server's clock) and returns how long it
   * now has.
   *
   * @throws SemaforException NOT_FOUND if the lease already ended (expired, released, or its
   *     semaphore was deleted)
   */
  public Duration renew(Duration ttl) {
    return Duration.ofNanos(rpc.call(renewRequest(ttl)).getLeaseRenewed().getExpiresInNs());
  }

  /**
   * {@link #renew(Duration)} without blocking: the future completes with how long the lease now
   * has, on a client thread (do not block in its callbacks), or exceptionally with the {@link
   * SemaforException} {@code renew} would throw (NOT_FOUND if the lease already ended; UNAVAILABLE,
   * outcome unknown, if the client is closed or no server answers in time). Cancelling the future
   * does not withdraw the renewal, which does not wait. Thread-safe.
   */
  public CompletableFuture<Duration> renewAsync(Duration ttl) {
    return rpc.callAsync(renewRequest(ttl))
        .thenApply(r -> Duration.ofNanos(r.getLeaseRenewed().getExpiresInNs()));
  }

  private Request.Builder renewRequest(Duration ttl) {
    return Request.newBuilder()
        .setRenewLease(
            RenewLease.newBuilder()
                .setPermitId(permitId)
                .setTtlNs(ttl.toNanos())
                .setName(ByteString.copyFromUtf8(semaphore)));
  }

  /** Ends the lease now; returns whether it was still there. Idempotent. */
  public boolean release() {
    return rpc.call(releaseRequest()).getLeaseReleased().getReleased();
  }

  /**
   * {@link #release()} without blocking: the future completes with whether the lease was still
   * there, on a client thread (do not block in its callbacks), or exceptionally with a {@link
   * SemaforException} (UNAVAILABLE, outcome unknown, if the client is closed or no server answers
   * in time; retrying is safe, a release is idempotent). Cancelling the future does not withdraw
   * the release. Thread-safe.
   */
  public CompletableFuture<Boolean> releaseAsync() {
    return rpc.callAsync(releaseRequest()).thenApply(r -> r.getLeaseReleased().getReleased());
  }

  private Request.Builder releaseRequest() {
    return Request.newBuilder()
        .setReleaseLease(
            ReleaseLease.newBuilder()
                .setPermitId(permitId)
                .setName(ByteString.copyFromUtf8(semaphore)));
  }

  @Override
  public String toString() {
    return "Lease["
        + permitId
        + (semaphore.isEmpty() ? "" : " on " + semaphore + " x" + amount)
        + "]";
  }
}
