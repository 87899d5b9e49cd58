package io.semafor.core;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.List;

/**
 * What an operation, command or query produced. A failed operation is a {@link Failure} and changed
 * nothing. For waiting operations, "not done" (a timeout, a cancellation) is a result, not a
 * failure: {@code Granted} with amount 0, {@code SemopDone(false)}, {@code ZeroReached(false)}, an
 * empty {@code WaitManyReported}.
 */
public sealed interface Result {

  /** The operation failed and changed nothing; {@code message} names the argument or limit. */
  record Failure(ErrorCode code, String message) implements Result {}

  /** A session was opened. */
  record SessionOpened(long sessionId, long ttl) implements Result {}

  /** The session was closed; what it owned went back. */
  record SessionClosed() implements Result {}

  /**
   * The answer to an {@code Expire…} command: whether it applied, or was ignored as early or stale.
   */
  record Expiry(boolean applied) implements Result {}

  /**
   * The answer to the create operation: {@code created} says whether the semaphore was made now or
   * already existed; {@code options} and {@code value} are the semaphore's.
   */
  record Created(boolean created, SemaphoreOptions options, long value) implements Result {}

  /** The semaphore was deleted. */
  record Deleted() implements Result {}

  /** {@code set}: the free value before it was written. */
  record ValueSet(long previous) implements Result {}

  /** {@code increment}: the free value after it. */
  record Incremented(long value) implements Result {}

  /**
   * {@code decrement} or {@code acquire}: {@code amount} taken (0 if it timed out or was
   * cancelled), the fencing token of this grant (0 if none), the request's arrival sequence number,
   * and the slots the owned permits hold (empty unless owned on a semaphore with a capacity).
   */
  record Granted(long amount, long token, long sequence, List<Long> slots) implements Result {
    /** Copies {@code slots}. */
    public Granted {
      slots = List.copyOf(slots);
    }

    /** True if anything was granted. */
    public boolean granted() {
      return amount > 0;
    }
  }

  /**
   * {@code acquireLease}: the permit id naming the lease, or 0 with amount 0 if it timed out; the
   * lease ends at {@code expiresAt} (log time) unless renewed.
   */
  record LeaseGranted(
      long permitId, long amount, long token, long sequence, List<Long> slots, long expiresAt)
      implements Result {
    /** Copies {@code slots}. */
    public LeaseGranted {
      slots = List.copyOf(slots);
    }

    /** True if the lease was granted. */
    public boolean granted() {
      return permitId != 0;
    }
  }

  /** {@code awaitZero}: whether the value reached 0 before the timeout. */
  record ZeroReached(boolean reached, long sequence) implements Result {}

  /**
   * {@code semop}: whether all ops took effect; for each op, the slots its owned take holds (empty
   * for others).
   */
  record SemopDone(boolean done, long token, long sequence, List<List<Long>> slots)
      implements Result {
    /** Copies {@code slots}. */
    public SemopDone {
      slots = slots.stream().map(List::copyOf).toList();
    }
  }

  /** {@code release} or {@code releaseSlot}: how much went back. */
  record Released(long amount) implements Result {}

  /** {@code releaseLease}: whether a lease was still there to release. */
  record LeaseReleased(boolean released) implements Result {}

  /** {@code renew}: the lease's new end in log time. */
  record LeaseRenewed(long expiresAt) implements Result {}

  /** {@code addToWaitMany}: the entry's unreported grant and still-pending amount after the add. */
  record WaitManyAdded(long granted, long pending) implements Result {}

  /** {@code removeFromWaitMany}: whether there was an entry, and the grant it gave back. */
  record WaitManyRemoved(boolean removed, long returned) implements Result {}

  /**
   * {@code waitMany}: the entries reported, in the round-robin order in which the client calls
   * their callbacks; empty if it timed out.
   */
  record WaitManyReported(List<Report> reports) implements Result {
    /** Copies {@code reports}. */
    public WaitManyReported {
      reports = List.copyOf(reports);
    }
  }

  /**
   * One reported WaitMany entry: the amount granted (0 if the semaphore was deleted) and the token
   * of its latest grant.
   */
  record Report(Name name, long granted, long token) {}

  /** {@code cancel}: whether the request was still waiting. */
  record Cancelled(boolean cancelled) implements Result {}

  /**
   * {@code get}: the state of one semaphore. {@code holders} counts the sessions that own permits
   * here, {@code leases} the leases on it.
   */
  record SemaphoreStatus(
      Name name,
      long value,
      SemaphoreOptions options,
      int waiters,
      int holders,
      int leases,
      long owned,
      long leased,
      long undelivered)
      implements Result {}

  /**
   * {@code inspect}: a semaphore's summary with one page of its queue (arrival order), holders
   * (session id order) and leases (permit id order). {@code next} is where each list resumes (the
   * key of the last entry the page passed, or where it started if it passed none); a list's {@code
   * …More} flag says whether entries remain past it.
   */
  record SemaphoreDetail(
      SemaphoreStatus status,
      List<WaiterView> queue,
      List<HolderView> holders,
      List<LeaseView> leases,
      Query.Position next,
      boolean queueMore,
      boolean holdersMore,
      boolean leasesMore)
      implements Result {
    /** Copies the lists. */
    public SemaphoreDetail {
      queue = List.copyOf(queue);
      holders = List.copyOf(holders);
      leases = List.copyOf(leases);
    }

    /** The complete view: every list in full, resuming after its last entry. */
    public SemaphoreDetail(
        SemaphoreStatus status,
        List<WaiterView> queue,
        List<HolderView> holders,
        List<LeaseView> leases) {
      this(
          status,
          queue,
          holders,
          leases,
          new Query.Position(
              queue.isEmpty() ? 0 : queue.get(queue.size() - 1).sequence(),
              holders.isEmpty() ? 0 : holders.get(holders.size() - 1).sessionId(),
              leases.isEmpty() ? 0 : leases.get(leases.size() - 1).permitId()),
          false,
          false,
          false);
    }

    /** True if no list has entries past this page. */
    public boolean complete() {
      return !queueMore && !holdersMore && !leasesMore;
    }
  }

  /** One waiter as {@code inspect} shows it, in arrival order. */
  record WaiterView(
      long sessionId,
      long requestId,
      long sequence,
      String kind,
      long amount,
      long deadline,
      ClientInfo client) {
    /** A waiter of a client that said nothing about itself. */
    public WaiterView(
        long sessionId, long requestId, long sequence, String kind, long amount, long deadline) {
      this(sessionId, requestId, sequence, kind, amount, deadline, ClientInfo.NONE);
    }
  }

  /** One session's holding: its signed adjustment (owned amount) and slots. */
  record HolderView(long sessionId, long owned, List<Long> slots, ClientInfo client) {
    /** Copies {@code slots}. */
    public HolderView {
      slots = List.copyOf(slots);
    }

    /** A holding of a client that said nothing about itself. */
    public HolderView(long sessionId, long owned, List<Long> slots) {
      this(sessionId, owned, slots, ClientInfo.NONE);
    }
  }

  /** One lease; {@code sessionId} is 0 once delivered, since it then outlives its session. */
  record LeaseView(
      long permitId,
      long sessionId,
      long amount,
      List<Long> slots,
      long token,
      long grantedAt,
      long expiresAt) {
    /** Copies {@code slots}. */
    public LeaseView {
      slots = List.copyOf(slots);
    }
  }

  /** {@link Query.Barrier}: the place in the apply order was reached. */
  record Passed() implements Result {}

  /** {@code EndSession}: the session ended. */
  record SessionEnded(long sessionId) implements Result {}

  /** {@code session list}: one page of live sessions in id order; {@code more} if others follow. */
  record SessionList(List<SessionView> sessions, boolean more) implements Result {
    /** Copies {@code sessions}. */
    public SessionList {
      sessions = List.copyOf(sessions);
    }
  }

  /**
   * One live session: its client, the principal that owns it (empty if anonymous), TTL, when it
   * opened and last sent a logged command (log time), how many semaphores it owns permits on (its
   * holdings; {@code inspect} shows the amounts), its waiting requests and unacknowledged replies.
   */
  record SessionView(
      long sessionId,
      ClientInfo client,
      String principal,
      long ttl,
      long openedAt,
      long lastSeen,
      int holdings,
      int waiting,
      int unacked) {}

  /** {@code list}: names in byte order. */
  record NameList(List<Name> names, List<SemaphoreStatus> statuses, boolean more)
      implements Result {
    /** Copies the lists. */
    public NameList {
      names = List.copyOf(names);
      statuses = List.copyOf(statuses);
    }

    /** A last page of names without their statuses. */
    public NameList(List<Name> names) {
      this(names, List.of(), false);
    }
  }
}
