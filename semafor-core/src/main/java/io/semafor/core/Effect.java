package io.semafor.core;

/**
 * What the edge must do because of a command, besides answering it: deliver a reply that was
 * waiting, arm or cancel a timer, start or stop tracking a session's liveness. Effects are data, so
 * the machine stays free of I/O and time.
 */
public sealed interface Effect {

  /** Send {@code reply} to the session's client: a waiting request completed. */
  record Complete(Reply reply) implements Effect {}

  /**
   * Arm {@code timer} to fire at {@code deadline} in log time, replacing any earlier arming of the
   * same key.
   */
  record ArmTimer(TimerKey timer, long deadline) implements Effect {}

  /** The timer is no longer needed. Firing it anyway is harmless: the expiry is then ignored. */
  record CancelTimer(TimerKey timer) implements Effect {}

  /** Track the session's liveness: propose its expiry when {@code ttl} passes without a sign. */
  record SessionStarted(long sessionId, long ttl, SessionOwner owner) implements Effect {
    /** A session owned by nobody in particular. */
    public SessionStarted(long sessionId, long ttl) {
      this(sessionId, ttl, SessionOwner.NONE);
    }
  }

  /** The session is gone; stop tracking it and fail its connection's pending calls. */
  record SessionEnded(long sessionId) implements Effect {}

  /**
   * The command served as many waiters as one command may ({@link Limits#grantsPerCommand}) and
   * more can be served: the leader proposes {@link Command.ContinueGrants} after whatever else is
   * queued, so other clients are answered between the slices.
   */
  record GrantsPending() implements Effect {}

  /**
   * A session renewed or released a lease that a session of another principal took, or was refused
   * that: the edge that took the request writes it to the audit log (decision 0047).
   *
   * @param action what was asked, e.g. {@code renew lease 42 on "jobs/printers"}
   * @param taker the principal that took the lease; empty if nobody in particular did
   * @param refused the PERMISSION_DENIED message the request was answered with; null if it was done
   */
  record LeaseOfAnother(
      long sessionId,
      long requestId,
      String action,
      String taker,
      @org.jspecify.annotations.Nullable String refused)
      implements Effect {}
}
