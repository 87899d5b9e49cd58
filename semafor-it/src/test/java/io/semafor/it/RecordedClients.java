package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaphoreInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Client threads that take and give back permits in a loop, each recorded into one {@link History},
 * all starting together and stopping at the same time: the shape every history test shares. Started
 * by {@link #run}; {@link #finish} waits for them and fails the test if one failed or hung.
 */
final class RecordedClients {
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Duration run;

  private RecordedClients(Duration run) {
    this.run = run;
  }

  /**
   * Starts one thread per acquirer, client {@code i} recorded as {@code i} in {@code history},
   * looping for {@code run} from the moment they all start.
   */
  static RecordedClients run(History history, List<History.Acquirer> acquirers, Duration run) {
    RecordedClients clients = new RecordedClients(run);
    CountDownLatch start = new CountDownLatch(1);
    for (int c = 0; c < acquirers.size(); c++) {
      History.Recorder recorder = history.recorder(c);
      History.Acquirer pool = acquirers.get(c);
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                  recorder.acquireAndReleaseUntil(pool, System.nanoTime() + run.toNanos());
                } catch (Throwable e) {
                  clients.failure.compareAndSet(null, e);
                }
              },
              "client-" + c);
      t.start();
      clients.threads.add(t);
    }
    start.countDown();
    return clients;
  }

  /**
   * Checks the recorded history (never more than {@code permits} certainly held, tokens and arrival
   * sequences in real-time order), then the semaphore with every client's session still open and
   * idle: closing one would give back what it owns and hide a permit lost or granted twice. All
   * must be back, nobody owning any.
   */
  static void assertSafeAndEveryPermitBack(
      List<History.Hold> holds, NamedSemaphore semaphore, long permits) {
    assertThat(HistoryChecker.overCapacity(holds, permits)).isEmpty();
    assertThat(HistoryChecker.tokensOutOfOrder(holds)).isEmpty();
    assertThat(HistoryChecker.sequencesOutOfOrder(holds)).isEmpty();
    SemaphoreInfo pool = semaphore.inspect();
    assertThat(pool.value() + pool.owned() + pool.leased() + pool.undelivered())
        .as("no permit lost or made: %s", pool)
        .isEqualTo(permits);
    assertThat(pool.value())
        .as("every permit back once all gave back what they took")
        .isEqualTo(permits);
    assertThat(pool.holderList()).as("owners").isEmpty();
  }

  /**
   * Waits for every thread, at most the run plus {@code slack} each, and asserts each finished and
   * none failed.
   */
  void finish(Duration slack) throws InterruptedException {
    for (Thread t : threads) {
      t.join(run.plus(slack).toMillis());
      assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }
    assertThat(failure.get()).isNull();
  }
}
