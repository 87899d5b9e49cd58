package io.semafor.it.faults;

import java.util.Objects;
import java.util.Set;

/**
 * One operation as the client process that made it saw it, and nothing more: a history of these is
 * what the fault checks trust, since a server under faults cannot be trusted to report on itself.
 *
 * <p>Times are {@link System#nanoTime()} in the recording process; on one Linux host that is {@code
 * CLOCK_MONOTONIC}, shared by every process, so histories from several processes can be merged and
 * compared in real time.
 *
 * @param client which client (one session) made the operation
 * @param kind {@link #ACQUIRE}, {@link #RELEASE}, {@link #INCREMENT}, {@link #TAKE} or {@link
 *     #READ}
 * @param semaphore the semaphore's name
 * @param amount the permits acquired, released, added or taken (for a take whose answer never came,
 *     the most it could have taken); 0 for a read
 * @param invoked when the client sent it
 * @param completed when the client saw its answer, or gave up on one ({@link Long#MAX_VALUE} for an
 *     op still in flight: see {@link #invocation})
 * @param outcome what the client knows about whether it took effect
 * @param value for a read, the value read; -1 otherwise
 * @param token for an acquire that got permits, its fencing token; -1 otherwise
 * @param sequence for an acquire that got permits, its arrival sequence; -1 otherwise
 */
public record Op(
    int client,
    String kind,
    String semaphore,
    long amount,
    long invoked,
    long completed,
    Outcome outcome,
    long value,
    long token,
    long sequence) {

  /** An all-or-nothing take of {@code amount} permits, which may wait. */
  public static final String ACQUIRE = "acquire";

  /** Gives back {@code amount} permits the client holds. */
  public static final String RELEASE = "release";

  /** Adds {@code amount} to the value, holding nothing. */
  public static final String INCREMENT = "increment";

  /**
   * Takes {@code amount} permits for good (a WaitMany grant reported to the client: consumed, owned
   * by no one, never given back).
   */
  public static final String TAKE = "take";

  /** Reads the value. */
  public static final String READ = "read";

  private static final Set<String> KINDS = Set.of(ACQUIRE, RELEASE, INCREMENT, TAKE, READ);

  /** What the client knows about whether an operation took effect. */
  public enum Outcome {
    /** It took effect, once, between invocation and completion. */
    OK,
    /** It certainly did not take effect (a refusal, a timed-out acquire the server answered). */
    FAILED,
    /**
     * It may or may not have taken effect, at any time after its invocation (the connection was
     * lost, the client timed out after sending, the process was killed).
     */
    UNKNOWN
  }

  /**
   * Refuses records no client could have seen, so a harness bug shows up when the history is
   * written or read rather than as a baffling verdict.
   *
   * @throws IllegalArgumentException if the kind is not one of the five, or an op that completed
   *     did so before it was invoked
   */
  public Op {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(semaphore, "semaphore");
    Objects.requireNonNull(outcome, "outcome");
    if (!KINDS.contains(kind)) {
      throw new IllegalArgumentException("unknown kind " + kind + ", expected one of " + KINDS);
    }
    if (completed < invoked) {
      throw new IllegalArgumentException("completed " + completed + " before invoked " + invoked);
    }
  }

  /** An acquire of {@code amount} permits; {@code token} and {@code sequence} -1 if not granted. */
  public static Op acquire(
      int client,
      String semaphore,
      long amount,
      long invoked,
      long completed,
      Outcome outcome,
      long token,
      long sequence) {
    return new Op(
        client, ACQUIRE, semaphore, amount, invoked, completed, outcome, -1, token, sequence);
  }

  /** A release of {@code amount} permits. */
  public static Op release(
      int client, String semaphore, long amount, long invoked, long completed, Outcome outcome) {
    return new Op(client, RELEASE, semaphore, amount, invoked, completed, outcome, -1, -1, -1);
  }

  /** An increment by {@code amount}. */
  public static Op increment(
      int client, String semaphore, long amount, long invoked, long completed, Outcome outcome) {
    return new Op(client, INCREMENT, semaphore, amount, invoked, completed, outcome, -1, -1, -1);
  }

  /** A take of {@code amount} permits for good (at most that many if UNKNOWN). */
  public static Op take(
      int client, String semaphore, long amount, long invoked, long completed, Outcome outcome) {
    return new Op(client, TAKE, semaphore, amount, invoked, completed, outcome, -1, -1, -1);
  }

  /** A read that saw {@code value} (-1 if it did not complete). */
  public static Op read(
      int client, String semaphore, long invoked, long completed, Outcome outcome, long value) {
    return new Op(client, READ, semaphore, 0, invoked, completed, outcome, value, -1, -1);
  }

  /**
   * The record a client appends <em>before</em> sending an operation: UNKNOWN, completing at {@link
   * Long#MAX_VALUE}. If the process is killed before the answer, this record is what remains, and
   * the checks rightly treat the op as one that may have happened; if the answer comes, the client
   * appends the completed op with the same client, kind, semaphore and {@code invoked}, and {@link
   * OpLog#read} keeps only that one.
   */
  public static Op invocation(
      int client, String kind, String semaphore, long amount, long invoked) {
    return new Op(
        client, kind, semaphore, amount, invoked, Long.MAX_VALUE, Outcome.UNKNOWN, -1, -1, -1);
  }

  /** Whether this is an {@link #invocation} record: sent, and no answer recorded (yet). */
  public boolean pending() {
    return outcome == Outcome.UNKNOWN && completed == Long.MAX_VALUE;
  }

  /**
   * Whether this op and {@code other} are records of the same invocation (the pending record and
   * its completion): one client sends one op at a time, so client and invocation time identify it.
   */
  boolean sameInvocation(Op other) {
    return client == other.client
        && invoked == other.invoked
        && kind.equals(other.kind)
        && semaphore.equals(other.semaphore);
  }

  /** A short form for violation messages: {@code client 3 acquire 2 of s [10, 20] OK}. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    b.append("client ").append(client).append(' ').append(kind);
    if (kind.equals(READ)) {
      b.append(" of ").append(semaphore);
      if (outcome == Outcome.OK) {
        b.append(" = ").append(value);
      }
    } else {
      b.append(' ').append(amount).append(" of ").append(semaphore);
    }
    b.append(" [").append(invoked).append(", ");
    b.append(completed == Long.MAX_VALUE ? "never" : Long.toString(completed));
    b.append("] ").append(outcome);
    if (kind.equals(ACQUIRE) && token >= 0) {
      b.append(" token ").append(token);
    }
    return b.toString();
  }
}
