package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.ErrorCode;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#sessions: a lost connection leaves the session alive until its TTL; a resume
 * keeps everything.
 */
class ResumeTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final TcpProxy proxy;
  private final NamedSemaphore watch;

  ResumeTest() throws Exception {
    proxy = new TcpProxy(semafor.server().address());
    watch = semafor.client().create("x", 2);
  }

  @AfterEach
  void stop() throws Exception {
    proxy.close();
    semafor.close();
  }

  private SemaforClient throughProxy(Duration ttl) {
    return SemaforClient.builder().addresses(proxy.address()).sessionTtl(ttl).connect();
  }

  @Test
  void aConnectionLostAndResumedWithinTheTtlKeepsOwnedPermitsWaitersAndGrants() throws Exception {
    try (SemaforClient client = throughProxy(Duration.ofSeconds(5))) {
      long session = client.sessionId();
      NamedSemaphore x = client.semaphore("x");
      Permit owned = x.acquirePermit(2);
      CompletableFuture<Optional<Permit>> waiting = x.acquirePermitAsync(1, Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(5)).until(() -> watch.info().waiters() == 1);

      proxy.cut();
      // issued while the connection is down: it goes out on resume, and is applied once
      CompletableFuture<Void> released = owned.releaseAsync();
      watch.increment(1); // the waiter is granted (owned) while its client is away
      proxy.restore();

      released.get(10, TimeUnit.SECONDS);
      Optional<Permit> granted = waiting.get(10, TimeUnit.SECONDS);
      assertThat(granted).isPresent();
      assertThat(client.sessionId()).isEqualTo(session);
      assertThat(watch.value()).isEqualTo(2);
      assertThat(watch.info().owned()).isEqualTo(1);
    }
  }

  @Test
  void aGrantMadeWhileTheClientWasAwayReachesItOnResume() throws Exception {
    try (SemaforClient client = throughProxy(Duration.ofSeconds(5))) {
      watch.set(0);
      CompletableFuture<Boolean> waiting =
          client.semaphore("x").acquireAsync(1, Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(5)).until(() -> watch.info().waiters() == 1);
      proxy.cut();
      watch.increment(1);
      await().atMost(Duration.ofSeconds(5)).until(() -> watch.info().undelivered() == 1);
      proxy.restore();
      assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> watch.info().undelivered() == 0);
      assertThat(watch.value()).isZero();
    }
  }

  @Test
  void aRequestRetriedAfterAResumeIsAppliedOnce() throws Exception {
    try (SemaforClient client = throughProxy(Duration.ofSeconds(5))) {
      watch.set(0);
      proxy.cut();
      CompletableFuture<Long> increment = client.semaphore("x").incrementAsync(1);
      Thread.sleep(100);
      proxy.restore();
      assertThat(increment.get(10, TimeUnit.SECONDS)).isEqualTo(1);
      client.simulateConnectionLoss(); // and once more, after it was applied
      assertThat(client.semaphore("x").increment(1)).isEqualTo(2);
      assertThat(watch.value()).isEqualTo(2);
    }
  }

  @Test
  void aSessionThatExpiresWhileAwayGivesEverythingBackAndTheClientGetsANewOne() throws Exception {
    try (SemaforClient client = throughProxy(Duration.ofMillis(500))) {
      AtomicInteger lost = new AtomicInteger();
      client.onSessionLost(lost::incrementAndGet);
      long session = client.sessionId();
      client.semaphore("x").acquirePermit(2);
      CompletableFuture<Boolean> waiting =
          client.semaphore("x").acquireAsync(1, Duration.ofSeconds(30));
      proxy.cut();
      await().atMost(Duration.ofSeconds(5)).until(() -> watch.value() == 2);
      assertThat(watch.info().waiters()).isZero();
      proxy.restore();

      assertThat(waiting)
          .failsWithin(Duration.ofSeconds(10))
          .withThrowableThat()
          .havingCause()
          .isInstanceOfSatisfying(
              SemaforException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.SESSION_EXPIRED));
      await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
      assertThat(client.sessionId()).isNotEqualTo(session);
      assertThat(client.semaphore("x").increment(1)).isEqualTo(3);
    }
  }
}
