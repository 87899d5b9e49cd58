package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.WaitMany;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Interrupting a thread blocked in a {@code semop} or a WaitMany {@code await} behaves as it does
 * in every other waiting call (docs/client.md): InterruptedException, the wait withdrawn from the
 * server, nothing left holding anyone back. The acquire case is {@code ClientOperationsTest}'s.
 */
class InterruptTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  // a long TTL: only the client's nudge, not a routine keep-alive, wakes the blocked reader
  private final SemaforClient client = semafor.newClient(Duration.ofSeconds(60));
  private final SemaforClient other = semafor.newClient();
  private Thread blocked;

  @AfterEach
  void stop() throws InterruptedException {
    if (blocked != null) {
      blocked.interrupt();
      blocked.join(TimeUnit.SECONDS.toMillis(10));
    }
    semafor.close();
  }

  /** Runs {@code call} on a new thread; the future gets what it returned or threw. */
  private CompletableFuture<Object> onAThread(Callable<?> call) {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    blocked =
        new Thread(
            () -> {
              try {
                outcome.complete(call.call());
              } catch (Throwable t) {
                outcome.complete(t);
              }
            },
            "blocked");
    blocked.start();
    return outcome;
  }

  @Test
  void anInterruptedSemopThrowsAndIsWithdrawnSoTheRequestQueuedBehindItIsServed() throws Exception {
    NamedSemaphore x = client.create("x", 1);
    CompletableFuture<Object> semop =
        onAThread(() -> client.semop().take("x", 2).execute()); // waits: only 1 there
    awaitQueued(x, 1);
    // FIFO: the blocked semop holds this later acquire back, though it would fit
    CompletableFuture<Boolean> behind =
        other.semaphore("x").acquireAsync(1, Duration.ofSeconds(30));
    awaitQueued(x, 2);

    blocked.interrupt();

    assertThat(semop.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(behind.get(5, TimeUnit.SECONDS)).as("served once the semop was withdrawn").isTrue();
    assertThat(x.inspect().queue()).isEmpty();
    assertThat(x.value()).as("the semop took nothing").isZero();
  }

  @Test
  void anInterruptedWaitManyAwaitThrowsAndTheListCarriesOn() throws Exception {
    NamedSemaphore x = client.create("x", 0);
    List<Long> reported = new ArrayList<>();
    WaitMany list = client.waitMany();
    list.add("x", 1, reported::add);
    CompletableFuture<Object> waiting = onAThread(() -> list.await(Duration.ofHours(1)));
    awaitQueued(x, 1);
    // the await has no queue of its own to watch: wait until the thread waits for its answer
    await().atMost(Duration.ofSeconds(5)).until(() -> waitsForAnAnswer(blocked));

    blocked.interrupt();

    assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(reported).isEmpty();
    // the interrupted await is gone from the server (a second one would be refused while it
    // waits); the entry is still queued and its grant is reported by the next await
    other.semaphore("x").increment(1);
    assertThat(list.await(Duration.ofSeconds(5))).isEqualTo(1);
    assertThat(reported).containsExactly(1L);
    assertThat(x.inspect().queue()).isEmpty();
  }

  private static boolean waitsForAnAnswer(Thread thread) {
    for (StackTraceElement frame : thread.getStackTrace()) {
      if (frame.getClassName().equals("io.semafor.client.internal.Link")
          && frame.getMethodName().equals("await")) {
        return true;
      }
    }
    return false;
  }

  private static SemaphoreInfo awaitQueued(NamedSemaphore x, int waiters) {
    return await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(x::inspect, info -> info.queue().size() == waiters);
  }
}
