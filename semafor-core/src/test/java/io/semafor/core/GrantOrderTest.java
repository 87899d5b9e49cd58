package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#grant-order: one arrival order; FIFO holds back, BARGING may pass. */
class GrantOrderTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void underFifoALargeRequestIsServedBeforeSmallerOnesThatCameAfterIt() {
    c.create("x", 2);
    TestClient big = h.connect();
    TestClient small = h.connect();
    long bigId = big.acquire("x", 5, Operation.FOREVER);
    long smallId = small.acquire("x", 1, Operation.FOREVER);

    c.increment("x", 3);

    assertThat(big.amount(bigId)).isEqualTo(5);
    assertThat(small.waiting(smallId)).isTrue();
  }

  @Test
  void underFifoATimeoutZeroRequestFailsAtOnceBehindAHeldBackWaiter() {
    // unlike java.util.concurrent.Semaphore.tryAcquire(), which barges even in fair mode
    c.create("x", 2);
    h.connect().acquire("x", 5, Operation.FOREVER);
    assertThat(c.granted(c.acquire("x", 1, 0)).granted()).isFalse();
    assertThat(h.value("x")).isEqualTo(2);
  }

  @Test
  void underBargingALaterRequestThatFitsMayPassABlockedOne() {
    c.create("x", 2, SemaphoreOptions.DEFAULT.policy(Policy.BARGING));
    TestClient big = h.connect();
    long bigId = big.acquire("x", 5, Operation.FOREVER);

    long small = c.acquire("x", 1, 0);

    assertThat(c.amount(small)).isEqualTo(1);
    assertThat(big.waiting(bigId)).isTrue();
  }

  @Test
  void underBargingAnIncrementServesTheFirstWaiterThatFits() {
    c.create("x", 0, SemaphoreOptions.DEFAULT.policy(Policy.BARGING));
    TestClient big = h.connect();
    TestClient small = h.connect();
    long bigId = big.acquire("x", 5, Operation.FOREVER);
    long smallId = small.acquire("x", 1, Operation.FOREVER);

    c.increment("x", 1);

    assertThat(small.amount(smallId)).isEqualTo(1);
    assertThat(big.waiting(bigId)).isTrue();
  }

  @Test
  void theLowestSequenceWaiterIsServedFirstAcrossSemaphores() {
    c.create("a", 0);
    c.create("b", 0);
    TestClient onB = h.connect();
    TestClient onA = h.connect();
    long first = onB.acquire("b", 1, Operation.FOREVER);
    long second = onA.acquire("a", 1, Operation.FOREVER);

    c.semop(0, SemopOp.of("a", 1), SemopOp.of("b", 1));

    assertThat(h.lastEffects())
        .filteredOn(Effect.Complete.class::isInstance)
        .extracting(
            e -> ((Effect.Complete) e).reply().requestId(),
            e -> ((Effect.Complete) e).reply().sessionId())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(first, onB.sessionId),
            org.assertj.core.groups.Tuple.tuple(second, onA.sessionId));
  }

  @Test
  void aRemovedBlockerLetsTheWaitersBehindItThrough() {
    c.create("x", 3);
    TestClient big = h.connect();
    long bigId = big.acquire("x", 10, Operation.FOREVER);
    long small = c.acquire("x", 1, Operation.FOREVER);
    assertThat(c.waiting(small)).isTrue();

    big.cancel(bigId);

    assertThat(c.amount(small)).isEqualTo(1);
  }

  @Test
  void anEarlierWaiterIsNeverHeldBackByALaterOne() {
    c.create("x", 0);
    TestClient early = h.connect();
    long earlyId = early.decrement("x", 1, Operation.FOREVER);
    h.connect().acquire("x", 10, Operation.FOREVER);

    c.increment("x", 1);

    assertThat(early.amount(earlyId)).isEqualTo(1);
  }

  @Test
  void grantsComeInArrivalOrderWhateverTheClientsClocksSay() {
    // The Redis seed's problem: order comes from arrival at the machine, never from clients.
    c.create("x", 0);
    TestClient[] clients = {h.connect(), h.connect(), h.connect()};
    long[] ids = new long[3];
    for (int i = 0; i < 3; i++) {
      ids[i] = clients[i].acquire("x", 1, Operation.FOREVER);
    }
    c.increment("x", 3);
    long previous = 0;
    for (int i = 0; i < 3; i++) {
      Result.Granted g = clients[i].granted(ids[i]);
      assertThat(g.sequence()).isGreaterThan(previous);
      previous = g.sequence();
    }
  }
}
