package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaphoreInfo;
import io.semafor.embedded.EmbeddedSemafor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client process killed with {@code kill -9} while it holds owned permits and while it waits: its
 * permits stay taken until it has been silent for its session TTL, come back within the TTL plus a
 * second, and its waiters are gone (docs/semantics.md#sessions).
 */
class KillNineTest {
  private static final Duration TTL = Duration.ofSeconds(1);
  private static final Duration POLL = Duration.ofMillis(10);
  private static final long MAX_POLLS = TTL.dividedBy(POLL) + 1;

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private Process holder;

  @AfterEach
  void stop() {
    if (holder != null && holder.isAlive()) {
      holder.destroyForcibly();
    }
    semafor.close();
  }

  private Process startHolder(String semaphore, long owned, long waitFor) throws IOException {
    return startHolder(semafor.address(), semaphore, owned, waitFor);
  }

  private Process startHolder(String address, String semaphore, long owned, long waitFor)
      throws IOException {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
                java,
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-cp",
                classpath,
                HolderProcess.class.getName(),
                address,
                semaphore,
                Long.toString(owned),
                Long.toString(waitFor),
                Long.toString(TTL.toMillis()))
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    Process process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    assertThat(line).as("holder process started").startsWith("READY");
    return process;
  }

  /** Sends SIGKILL by PID, as {@code kill -9} does, and waits for the process to be gone. */
  private static void killNine(Process process) throws Exception {
    Process kill = new ProcessBuilder("kill", "-9", Long.toString(process.pid())).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(137); // 128 + SIGKILL
  }

  @Test
  void ownedPermitsOfAKilledClientComeBackWithinItsTtlPlusASecond() throws Exception {
    NamedSemaphore pool =
        semafor.client().create("pool", 3, io.semafor.SemaphoreOptions.DEFAULT.capacity(3));
    holder = startHolder("pool", 2, 0);
    assertThat(pool.value()).isEqualTo(1);
    assertThat(pool.info().owned()).isEqualTo(2);

    long killedAt = System.nanoTime();
    killNine(holder);

    await()
        .atMost(TTL.plusSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> pool.value() == 3);
    assertThat(Duration.ofNanos(System.nanoTime() - killedAt))
        .isLessThanOrEqualTo(TTL.plusSeconds(1));
    assertThat(pool.info().owned()).isZero();
    assertThat(pool.inspect().holderList()).isEmpty();
  }

  @Test
  void ownedPermitsOfAKilledClientStayTakenUntilItHasBeenSilentForItsTtl() throws Exception {
    NamedSemaphore pool =
        semafor.client().create("pool", 3, io.semafor.SemaphoreOptions.DEFAULT.capacity(3));
    try (TcpProxy proxy = new TcpProxy(semafor.server().address())) {
      holder = startHolder(proxy.address(), "pool", 2, 0);
      assertThat(pool.value()).isEqualTo(1);

      long killedAt = System.nanoTime();
      killNine(holder);

      // The server hears the holder's last bytes no earlier than the proxy passed them on, and
      // ends a session only after a TTL of silence (docs/semantics.md#sessions). Until then the
      // permits must stay
      // taken. Only reads answered before that moment count: one answered later may have been
      // made later. The holder's last keep-alive may be up to TTL/3 before the kill, so the
      // window is at least 2/3 of the TTL long.
      long earliestBack = proxy.lastBytesToServerAt() + TTL.toNanos();
      int readsInWindow = 0;
      for (int i = 0; i < MAX_POLLS && System.nanoTime() < earliestBack; i++) {
        SemaphoreInfo info = pool.info();
        long answered = System.nanoTime();
        if (answered < earliestBack) {
          assertThat(info.value() + "/" + info.owned())
              .as(
                  "free/owned %d ms after the kill, %d ms before the session may end",
                  TimeUnit.NANOSECONDS.toMillis(answered - killedAt),
                  TimeUnit.NANOSECONDS.toMillis(earliestBack - answered))
              .isEqualTo("1/2");
          readsInWindow++;
        }
        Thread.sleep(POLL.toMillis());
      }
      assertThat(readsInWindow).as("reads before the session may end").isPositive();
    }
  }

  @Test
  void theWaitersOfAKilledClientAreGoneAndHoldNobodyBack() throws Exception {
    NamedSemaphore pool = semafor.client().create("pool", 1);
    holder = startHolder("pool", 1, 5); // holds 1, waits for 5: a blocker under FIFO
    // READY follows the async request's sending, not its arrival: wait until it is queued
    await().atMost(Duration.ofSeconds(5)).until(() -> pool.info().waiters() == 1);

    killNine(holder);

    await()
        .atMost(TTL.plusSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> pool.info().waiters() == 0 && pool.value() == 1);
    NamedSemaphore mine = semafor.newClient().semaphore("pool");
    assertThat(mine.tryAcquire(1, Duration.ZERO)).isTrue();
  }

  @Test
  void killingAClientDoesNotDisturbTheOthers() throws Exception {
    NamedSemaphore pool = semafor.client().create("pool", 5);
    holder = startHolder("pool", 2, 0);
    NamedSemaphore other = semafor.newClient().semaphore("pool");
    killNine(holder);
    for (int i = 0; i < 100; i++) {
      assertThat(other.tryAcquire(1, Duration.ofSeconds(5))).isTrue();
      other.increment(1);
    }
    await().atMost(TTL.plusSeconds(1)).until(() -> pool.value() == 5);
  }
}
