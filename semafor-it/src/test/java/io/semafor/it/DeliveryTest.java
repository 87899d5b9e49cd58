package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.SemaphoreOptions;
import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.WaitMany;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#delivery: a grant the client read is acknowledged within milliseconds, whether
 * or not another request follows, so it stops counting as in transit; a lease is delivered by the
 * time {@code acquireLease} returns, and from then on outlives its session and its process.
 *
 * <p>The clients here keep the default 10 s TTL, so a routine keep-alive (every TTL / 3) cannot be
 * what delivers a grant within the time allowed.
 */
class DeliveryTest {
  /** The acknowledgement goes within ~1 ms; the rest is room for a loaded 2-core machine. */
  private static final Duration PROMPTLY = Duration.ofMillis(200);

  private static final Duration TTL = Duration.ofSeconds(1);

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient taker = semafor.newClient();
  private final NamedSemaphore x;
  private final NamedSemaphore elsewhere;
  private ChildJvm holder;

  DeliveryTest() {
    x = taker.create("x", 1, SemaphoreOptions.DEFAULT.capacity(1));
    elsewhere = semafor.newClient().semaphore("x");
  }

  @AfterEach
  void stop() {
    if (holder != null) {
      holder.close();
    }
    semafor.close();
  }

  /**
   * The capacity rule counts a grant in transit, so an increment back to the capacity is refused
   * with OVERFLOW until the grant that took the permit is delivered.
   */
  private void incrementSucceedsPromptly() {
    await()
        .atMost(PROMPTLY)
        .pollInterval(Duration.ofMillis(5))
        .ignoreExceptionsInstanceOf(SemaforException.class)
        .until(() -> elsewhere.increment(1) == 1);
    assertThat(x.info().undelivered()).isZero();
  }

  @Test
  void aPermitTakenWithTryAcquireIsDeliveredWithinMilliseconds() throws InterruptedException {
    assertThat(x.tryAcquire(1, Duration.ZERO)).isTrue();
    incrementSucceedsPromptly();
  }

  @Test
  void aPartialDecrementIsDeliveredWithinMilliseconds() throws InterruptedException {
    assertThat(x.decrement(5, Duration.ZERO)).isEqualTo(1);
    incrementSucceedsPromptly();
  }

  @Test
  void aWaitManyReportIsDeliveredWithinMilliseconds() throws InterruptedException {
    WaitMany list = taker.waitMany();
    list.add("x", 1, granted -> {});
    assertThat(list.await(Duration.ZERO)).isEqualTo(1);
    incrementSucceedsPromptly();
  }

  @Test
  void aLeaseIsDeliveredWhenAcquireLeaseReturns() throws InterruptedException {
    Lease lease = x.acquireLease(1, Duration.ofMinutes(5), Duration.ZERO);

    assertThat(lease).isNotNull();
    SemaphoreInfo info = x.inspect();
    assertThat(info.undelivered()).isZero();
    assertThat(info.leases()).singleElement().satisfies(l -> assertThat(l.sessionId()).isZero());
  }

  @Test
  void aLeaseHolderKilledRightAfterGettingItsLeaseKeepsTheLeasePastItsSessionTtl()
      throws Exception {
    NamedSemaphore marker = taker.create("marker", 1);
    holder =
        ChildJvm.start(
            LeaseHolderProcess.class,
            semafor.address(),
            "marker",
            "x",
            Long.toString(TTL.toMillis()),
            Long.toString(Duration.ofMinutes(5).toMillis()));
    long permitId = Long.parseLong(holder.awaitLine("LEASE", Duration.ofSeconds(20)).substring(6));
    holder.killNine();

    // the holder's session expires: its owned marker permit comes back
    await()
        .atMost(TTL.plusSeconds(2))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> marker.value() == 1);

    SemaphoreInfo info = x.inspect();
    assertThat(info.leases())
        .as("the delivered lease outlived its session")
        .singleElement()
        .satisfies(l -> assertThat(l.permitId()).isEqualTo(permitId));
    assertThat(info.value()).isZero();
  }

  @Test
  void aWaitManyGrantWhoseSessionEndedWhileItsProcessWasFrozenIsNotReportedWhenItWakes()
      throws Exception {
    assertTheFrozenConsumerReportsNothing("await");
  }

  @Test
  void anAsyncWaitManyGrantWhoseSessionEndedWhileItsProcessWasFrozenIsNotReportedWhenItWakes()
      throws Exception {
    assertTheFrozenConsumerReportsNothing("async");
  }

  /**
   * A consumer process waits on a WaitMany list and is frozen (SIGSTOP); a ticket is granted to the
   * list, its session ends, the ticket goes back and another client takes it; woken, the consumer
   * must not report it too.
   */
  private void assertTheFrozenConsumerReportsNothing(String mode) throws Exception {
    NamedSemaphore tickets = taker.create("tickets", 0);
    holder =
        ChildJvm.start(
            WaitManyConsumerProcess.class,
            semafor.address(),
            "tickets",
            Long.toString(TTL.toMillis()),
            mode);
    holder.awaitLine("WAITING", Duration.ofSeconds(20));
    await().atMost(Duration.ofSeconds(5)).until(() -> tickets.info().waiters() == 1);
    holder.signal("STOP");
    tickets.increment(1); // granted to the frozen list: its report lies unread in the socket

    // the session ends unheard, and the grant, never acknowledged, goes back to the semaphore
    await()
        .atMost(TTL.plusSeconds(3))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> tickets.value() == 1);
    assertThat(tickets.decrement(1, Duration.ZERO)).isEqualTo(1); // another consumer takes it
    holder.signal("CONT"); // the consumer wakes and reads the report

    assertThat(holder.awaitLine("RESULT", Duration.ofSeconds(20)))
        .as("the ticket is consumed once, by the other client")
        .isEqualTo("RESULT failed=SESSION_EXPIRED reported=[]");
  }
}
