package io.semafor.core;

import io.semafor.SemaphoreOptions;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The operations of docs/semantics.md#operations, each carried by a {@link Command.Request}.
 * Timeouts are nanoseconds: {@code 0} does not wait, {@link #FOREVER} waits until served; amounts
 * are positive.
 */
public sealed interface Operation {

  /** The timeout meaning "wait until served". */
  long FOREVER = -1;

  /**
   * An operation on one semaphore, named by {@link #name}: what the server checks permissions on,
   * audits, and the grant order looks at. Not one of these: {@code Semop} (several names), the
   * lease operations (a name only in newer log entries), and those on the session itself.
   */
  interface OnOneSemaphore {
    /** The semaphore this operation acts on. */
    Name name();
  }

  /**
   * Creates the semaphore, or opens it if it exists, ignoring {@code initial} and {@code options}
   * (IRIS); answers {@link Result.Created} saying which happened.
   */
  record Create(Name name, long initial, SemaphoreOptions options)
      implements Operation, OnOneSemaphore {}

  /** Deletes the semaphore; its waiters complete with {@code DELETED}. */
  record Delete(Name name) implements Operation, OnOneSemaphore {}

  /** Writes the free value; what sessions own or lease is untouched. */
  record SetValue(Name name, long value) implements Operation, OnOneSemaphore {}

  /** Adds {@code amount} to the value; anyone may increment. */
  record Increment(Name name, long amount) implements Operation, OnOneSemaphore {}

  /** IRIS decrement: when served, takes {@code min(value, amount)}; waits while the value is 0. */
  record Decrement(Name name, long amount, long timeout, boolean owned)
      implements Operation, OnOneSemaphore {}

  /** All-or-nothing take of exactly {@code amount}. */
  record Acquire(Name name, long amount, long timeout, boolean owned)
      implements Operation, OnOneSemaphore {}

  /** Like {@link Acquire}, but the permits form a lease that ends {@code leaseTtl} after grant. */
  record AcquireLease(Name name, long amount, long leaseTtl, long timeout)
      implements Operation, OnOneSemaphore {}

  /** SysV wait-for-zero: completes when the value is 0, consuming nothing. */
  record AwaitZero(Name name, long timeout) implements Operation, OnOneSemaphore {}

  /** SysV {@code semop}: every op takes effect in one atomic step, or none does. */
  record Semop(List<SemopOp> ops, long timeout) implements Operation {
    /** Copies {@code ops}. */
    public Semop {
      ops = List.copyOf(ops);
    }
  }

  /** Gives back {@code amount} of what this session owns; more than it owns is refused. */
  record Release(Name name, long amount) implements Operation, OnOneSemaphore {}

  /** Gives back the one owned permit holding {@code slot}. */
  record ReleaseSlot(Name name, long slot) implements Operation, OnOneSemaphore {}

  /**
   * Moves a lease's end to {@code ttl} from now. {@code name}, if given, is the lease's semaphore:
   * a lease on another one is not found, so that permission to renew on one name does not reach
   * leases on others. Null only in log entries written before requests named it. With {@code
   * takerOnly}, a lease another principal took is refused with PERMISSION_DENIED (the edge sets it
   * for a principal without {@code release} on the name, decision 0047); log entries written before
   * it existed carry false.
   */
  record RenewLease(long permitId, long ttl, @Nullable Name name, boolean takerOnly)
      implements Operation {
    /** Checks that a taker-only request names the lease's semaphore. */
    public RenewLease {
      if (takerOnly && name == null) {
        throw new IllegalArgumentException("a taker-only renew names the lease's semaphore");
      }
    }

    /** Renews a lease whatever its semaphore. */
    public RenewLease(long permitId, long ttl) {
      this(permitId, ttl, null);
    }

    /** Renews a lease on {@code name} whoever took it. */
    public RenewLease(long permitId, long ttl, @Nullable Name name) {
      this(permitId, ttl, name, false);
    }
  }

  /**
   * Ends a lease now; idempotent. {@code name}, if given, is the lease's semaphore: a lease on
   * another one is not released (as if it did not exist). With {@code takerOnly}, a lease another
   * principal took is refused with PERMISSION_DENIED (decision 0047); without, any session may
   * release it.
   */
  record ReleaseLease(long permitId, @Nullable Name name, boolean takerOnly) implements Operation {
    /** Checks that a taker-only request names the lease's semaphore. */
    public ReleaseLease {
      if (takerOnly && name == null) {
        throw new IllegalArgumentException("a taker-only release names the lease's semaphore");
      }
    }

    /** Releases a lease whatever its semaphore. */
    public ReleaseLease(long permitId) {
      this(permitId, null);
    }

    /** Releases a lease on {@code name} whoever took it. */
    public ReleaseLease(long permitId, @Nullable Name name) {
      this(permitId, name, false);
    }
  }

  /** Adds an asynchronous partial decrement to WaitMany list {@code listId} (IRIS). */
  record AddToWaitMany(long listId, Name name, long amount) implements Operation, OnOneSemaphore {}

  /** Removes the entry for {@code name}; a grant it holds goes back to the semaphore. */
  record RemoveFromWaitMany(long listId, Name name) implements Operation, OnOneSemaphore {}

  /** Waits until an entry of the list has a grant, then reports every entry that has one. */
  record WaitMany(long listId, long timeout) implements Operation {}

  /** Withdraws this session's waiting request {@code requestId}, which completes as timed out. */
  record Cancel(long requestId) implements Operation {}

  /** Ends the session now: everything it owns goes back. */
  record CloseSession() implements Operation {}

  /**
   * Ends another session at once, as if its TTL had passed: an operator freeing what a dead client
   * holds without waiting for its TTL. Its waiters fail with SESSION_EXPIRED, what it owned goes
   * back, its client is told its session ended. Answers {@link Result.SessionEnded}; NOT_FOUND if
   * no such session exists; INVALID_ARGUMENT for the caller's own session (close it instead).
   */
  record EndSession(long sessionId) implements Operation {}
}
