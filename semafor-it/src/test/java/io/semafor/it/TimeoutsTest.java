package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.NamedSemaphore;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#time: timeouts are measured by the server and never fire early. */
class TimeoutsTest {

  @Test
  void aTimedOutWaitHasWaitedAtLeastItsTimeout() throws InterruptedException {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      NamedSemaphore x = semafor.client().create("x", 0);
      for (long millis : new long[] {1, 5, 20, 50, 120, 250}) {
        for (int round = 0; round < 5; round++) {
          long start = System.nanoTime();
          assertThat(x.tryAcquire(1, Duration.ofMillis(millis))).isFalse();
          long elapsed = System.nanoTime() - start;
          assertThat(elapsed)
              .as("waited for a %d ms timeout", millis)
              .isGreaterThanOrEqualTo(millis * 1_000_000);
        }
      }
    }
  }

  @Test
  void aLeaseIsNeverTakenBackBeforeItsTtl() throws InterruptedException {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      NamedSemaphore x = semafor.client().create("x", 1);
      long start = System.nanoTime();
      x.acquireLease(1, Duration.ofMillis(200), Duration.ZERO);
      assertThat(semafor.newClient().semaphore("x").decrement(1, Duration.ofSeconds(5)))
          .isEqualTo(1);
      assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(200_000_000L);
    }
  }
}
