package io.semafor.it;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What clients saw, recorded as it happened, for {@link HistoryChecker}: when each acquisition was
 * invoked and returned (with its fencing token and arrival sequence), and when its release was
 * invoked and returned. Times are {@link System#nanoTime()} in the recording process. Thread-safe:
 * each client records into its own {@link Recorder}.
 *
 * <p>A recorder holds every permit it takes for {@link #hold()} before giving it back. That is what
 * lets {@link HistoryChecker#overCapacity} fail: it counts only the interval in which a client
 * certainly held its permits, from the acquisition's return to the release's invocation, and a
 * recorder that released at once would leave that interval a few nanoseconds long, so no two holds
 * would ever certainly overlap, whatever the server granted.
 */
public final class History {
  /** The hold the history tests use unless told otherwise: {@code -Dhistory.holdMillis=N}. */
  static final Duration DEFAULT_HOLD = Duration.ofMillis(Long.getLong("history.holdMillis", 2));

  /**
   * One acquisition of {@code amount} permits, as its client saw it. Public so that histories
   * recorded by other processes ({@code io.semafor.it.faults.FaultChecks#holdsOf}) can be checked
   * by {@link HistoryChecker} too.
   */
  public record Hold(
      int client,
      long amount,
      long acquireInvoked,
      long acquireReturned,
      long token,
      long sequence,
      long releaseInvoked,
      long releaseReturned) {}

  /** A permit as a recorded client holds it: its grant's token and sequence, and its release. */
  record Grant(long token, long sequence, Runnable release) {}

  /**
   * How a recorded client takes one permit, waiting as long as it takes: the seam that lets the
   * same recorder drive a real semaphore ({@link #ownedPermitsOf}) or a deliberately broken one
   * that a test plants to show the checks catch it.
   */
  @FunctionalInterface
  interface Acquirer {
    /** Blocks until one permit is granted; throws if interrupted or the semaphore fails. */
    Grant acquire() throws InterruptedException;
  }

  /**
   * Takes one owned permit of {@code pool} at a time ({@link NamedSemaphore#acquirePermit}) and
   * gives it back with {@link Permit#release()}; both block, and throw what the client throws.
   */
  static Acquirer ownedPermitsOf(NamedSemaphore pool) {
    return () -> {
      Permit permit = pool.acquirePermit(1);
      return new Grant(permit.token(), permit.sequence(), permit::release);
    };
  }

  private final List<Hold> holds = Collections.synchronizedList(new ArrayList<>());
  private final Duration hold;

  /** A history whose recorders hold each permit for {@link #DEFAULT_HOLD}. */
  History() {
    this(DEFAULT_HOLD);
  }

  /**
   * A history whose recorders hold each permit for {@code hold}.
   *
   * @throws IllegalArgumentException if {@code hold} is not positive: without a hold no interval is
   *     certainly held and the over-capacity check cannot fail
   */
  History(Duration hold) {
    if (hold.isNegative() || hold.isZero()) {
      throw new IllegalArgumentException("a hold of " + hold + " makes no interval certain");
    }
    this.hold = hold;
  }

  /** How long each recorder holds a permit between the acquisition's return and the release. */
  Duration hold() {
    return hold;
  }

  /** Records one client's holds. Not thread-safe: one per client thread. */
  final class Recorder {
    private final int client;

    Recorder(int client) {
      this.client = client;
    }

    /**
     * Records a hold; {@code releaseInvoked} and {@code releaseReturned} are {@link Long#MAX_VALUE}
     * if the client never released (it died).
     */
    void hold(
        long amount,
        long acquireInvoked,
        long acquireReturned,
        long token,
        long sequence,
        long releaseInvoked,
        long releaseReturned) {
      holds.add(
          new Hold(
              client,
              amount,
              acquireInvoked,
              acquireReturned,
              token,
              sequence,
              releaseInvoked,
              releaseReturned));
    }

    /** {@link #acquireAndReleaseUntil(Acquirer, long)} on owned permits of {@code pool}. */
    void acquireAndReleaseUntil(NamedSemaphore pool, long endNanos) throws InterruptedException {
      acquireAndReleaseUntil(ownedPermitsOf(pool), endNanos);
    }

    /**
     * Takes one permit from {@code pool}, holds it for the history's {@link #hold()}, and gives it
     * back, again and again until {@code endNanos}, recording each hold as the client saw it.
     * Blocks for as long as that takes (past {@code endNanos} by the last acquisition's wait);
     * throws what {@code pool} throws, and {@link InterruptedException} if interrupted.
     */
    void acquireAndReleaseUntil(Acquirer pool, long endNanos) throws InterruptedException {
      while (System.nanoTime() < endNanos) {
        long invoked = System.nanoTime();
        Grant grant = pool.acquire();
        long returned = System.nanoTime();
        holdUntil(returned + hold.toNanos());
        long releaseInvoked = System.nanoTime();
        grant.release().run();
        hold(
            1,
            invoked,
            returned,
            grant.token(),
            grant.sequence(),
            releaseInvoked,
            System.nanoTime());
      }
    }

    /** Sleeps until {@code untilNanos}: a sleep may end early, so it looks again (bounded). */
    private void holdUntil(long untilNanos) throws InterruptedException {
      for (long left = untilNanos - System.nanoTime();
          left > 0;
          left = untilNanos - System.nanoTime()) {
        TimeUnit.NANOSECONDS.sleep(left);
      }
    }
  }

  Recorder recorder(int client) {
    return new Recorder(client);
  }

  List<Hold> holds() {
    synchronized (holds) {
      return List.copyOf(holds);
    }
  }
}
