package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.SemaphoreOptions;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/semantics.md#cancelled-waits, the process dies: a client process waits for the only permit
 * of a capacity-1 semaphore, and is killed with {@code kill -9} as the holder releases it. Whether
 * the grant reached the process or not, once the process's session has ended (its TTL of silence)
 * the semaphore is back at 1 with nothing owned, in transit or queued: an owned grant, delivered or
 * not, goes back with its session. A handful of races per form (a child JVM each), the kill shifted
 * so that it lands before, around or after the grant (a random shift; the seed is printed).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KillRaceTest {
  private static final Duration TTL = Duration.ofSeconds(1);

  /** Races per form; each starts a JVM. */
  private static final int ROUNDS = Integer.getInteger("killRace.rounds", 2);

  private static final List<String> FORMS =
      List.of("OWNED_ACQUIRE", "OWNED_SEMOP", "OWNED_ACQUIRE_ASYNC");

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient holder = semafor.client();
  private final SemaforClient checker = semafor.newClient();
  private final long seed = Long.getLong("killRace.seed", System.nanoTime());
  private final SplittableRandom random = new SplittableRandom(seed);

  @AfterEach
  void stop() {
    semafor.close();
  }

  @Test
  void aPermitGrantedAsItsWaitingProcessIsKilledIsBackOnceTheSessionEnds() throws Exception {
    List<String> lost = new ArrayList<>();
    int got = 0;
    int races = 0;
    for (String form : FORMS) {
      for (int round = 0; round < ROUNDS; round++) {
        String name = "kill-" + form + "-" + round;
        holder.create(name, 1, SemaphoreOptions.DEFAULT.capacity(1));
        Permit held = holder.semaphore(name).tryAcquirePermit(1, Duration.ZERO);
        assertThat(held).isNotNull();
        NamedSemaphore x = checker.semaphore(name);
        try (ChildJvm waiting =
            ChildJvm.start(
                WaitingProcess.class,
                semafor.address(),
                name,
                form,
                Long.toString(TTL.toMillis()))) {
          waiting.awaitLine("READY", Duration.ofSeconds(30));
          await()
              .atMost(Duration.ofSeconds(10))
              .pollInterval(Duration.ofMillis(5))
              .until(() -> x.info().waiters() == 1);
          // the kill lands some milliseconds after it starts (a kill process is spawned, the JVM
          // torn down), and even a warmed-up child takes tens of milliseconds to return its first
          // grant: the release comes up to 20 ms after the kill starts, or up to 40 ms before
          long shift = random.nextLong(-40_000_000, 20_000_001);
          CountDownLatch go = new CountDownLatch(1);
          Thread releasing =
              new Thread(
                  () -> {
                    awaitQuietly(go);
                    pause(shift);
                    held.release();
                  },
                  "releasing");
          releasing.start();
          go.countDown();
          pause(-shift);
          waiting.killNine();
          releasing.join(TimeUnit.SECONDS.toMillis(30));
          races++;
          if (printedGot(waiting)) {
            got++; // the waiting call returned the permit in the process before it died
          }
          try {
            await()
                .atMost(TTL.plusSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(x::inspect, KillRaceTest::whole);
          } catch (ConditionTimeoutException e) {
            SemaphoreInfo info = x.inspect();
            lost.add(
                form
                    + " round "
                    + round
                    + " (shift "
                    + shift / 1_000
                    + " us): value "
                    + info.value()
                    + ", owned "
                    + info.owned()
                    + ", in transit "
                    + info.undelivered()
                    + ", waiters "
                    + info.waiters());
          }
        }
      }
    }
    System.out.printf(
        "%d races, the permit returned in the process before it died in %d%n", races, got);
    assertThat(lost)
        .as("permits lost in %d races (seed %d: -DkillRace.seed=%d)", races, seed, seed)
        .isEmpty();
  }

  /** Whether the killed process had printed GOT (its output has ended). */
  private static boolean printedGot(ChildJvm process) throws InterruptedException {
    try {
      process.awaitLine("GOT", Duration.ofSeconds(5));
      return true;
    } catch (AssertionError endedFirst) {
      return false;
    }
  }

  private static boolean whole(SemaphoreInfo info) {
    return info.value() == 1
        && info.owned() == 0
        && info.leased() == 0
        && info.undelivered() == 0
        && info.waiters() == 0;
  }

  private static void pause(long nanos) {
    if (nanos > 0) {
      long until = System.nanoTime() + nanos;
      while (System.nanoTime() - until < 0) {
        Thread.onSpinWait();
      }
    }
  }

  private static void awaitQuietly(CountDownLatch go) {
    try {
      go.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
