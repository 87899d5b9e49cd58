package io.semafor.it;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What clients saw, recorded as it happened, for {@link HistoryChecker}: when each acquisition was
 * invoked and returned (with its fencing token and arrival sequence), and when its release was
 * invoked and returned. Times are {@link System#nanoTime()} in the recording process. Thread-safe:
 * each client records into its own {@link Recorder}.
 */
final class History {
  /** One acquisition of {@code amount} permits, as its client saw it. */
  record Hold(
      int client,
      long amount,
      long acquireInvoked,
      long acquireReturned,
      long token,
      long sequence,
      long releaseInvoked,
      long releaseReturned) {}

  private final List<Hold> holds = Collections.synchronizedList(new ArrayList<>());

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

    /**
     * Takes one owned permit of {@code pool} and gives it back, again and again until {@code
     * endNanos}, recording each hold as the client saw it.
     */
    void acquireAndReleaseUntil(NamedSemaphore pool, long endNanos) throws InterruptedException {
      while (System.nanoTime() < endNanos) {
        long invoked = System.nanoTime();
        Permit permit = pool.acquirePermit(1);
        long returned = System.nanoTime();
        long releaseInvoked = System.nanoTime();
        permit.release();
        hold(
            1,
            invoked,
            returned,
            permit.token(),
            permit.sequence(),
            releaseInvoked,
            System.nanoTime());
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
