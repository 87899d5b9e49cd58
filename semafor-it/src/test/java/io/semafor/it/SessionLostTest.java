package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client whose session expired while it could not run (SIGSTOP, a long GC, a suspended VM) is
 * told so as soon as it runs again: its {@code onSessionLost} listeners run within seconds
 * (docs/semantics.md#sessions, docs/client.md).
 */
class SessionLostTest {
  private static final Duration TTL = Duration.ofSeconds(1);

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private ChildJvm client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    semafor.close();
  }

  @Test
  void aClientFrozenPastItsTtlHearsOfItsLostSessionWithinSecondsOfResuming() throws Exception {
    NamedSemaphore pool = semafor.client().create("pool", 1);
    client =
        ChildJvm.start(
            SessionLostProcess.class, semafor.address(), "pool", Long.toString(TTL.toMillis()));
    client.awaitLine("READY", Duration.ofSeconds(20));
    // it holds the permit and waits for another: at expiry the server answers that waiter, so a
    // frame is waiting in the frozen client's socket when it runs again
    await().atMost(Duration.ofSeconds(5)).until(() -> pool.info().waiters() == 1);
    assertThat(pool.value()).as("the client holds the permit").isZero();

    client.signal("STOP");
    // the server expires the silent session and takes its permit back
    await()
        .atMost(TTL.multipliedBy(3))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> pool.value() == 1 && pool.info().waiters() == 0);
    client.signal("CONT");

    client.awaitLine("LOST", Duration.ofSeconds(3));
  }
}
