package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A grant under FIFO evaluates the same number of waiters however long the queue
 * (docs/semantics.md#fifo, issue 2: O(1) amortised for single-semaphore waiters). Counts work, not
 * time.
 */
class GrantWorkTest {
  private static final int GRANTS = 50;

  /** Evaluations per grant when {@code queued} waiters of {@code kind} wait on one semaphore. */
  private static double evaluationsPerGrant(int queued, boolean partial) {
    Harness h = new Harness(Limits.DEFAULT.withMaxSessions(queued / 4000 + 10));
    TestClient admin = h.connect();
    admin.create("x", 0);
    List<TestClient> clients = new ArrayList<>();
    for (int i = 0; i < queued; i++) {
      if (i % 4000 == 0) {
        clients.add(h.connect());
      }
      TestClient c = clients.get(clients.size() - 1);
      if (partial) {
        c.decrement("x", 1, Operation.FOREVER);
      } else {
        c.acquire("x", 1, Operation.FOREVER);
      }
    }
    long before = h.machine.waiterEvaluations();
    for (int i = 0; i < GRANTS; i++) {
      admin.increment("x", 1);
    }
    assertThat(h.status("x").waiters()).isEqualTo(queued - GRANTS);
    return (h.machine.waiterEvaluations() - before) / (double) GRANTS;
  }

  @ParameterizedTest(name = "{0} queued")
  @ValueSource(ints = {100, 10_000, 100_000})
  void grantingTheHeadOfAnAcquireQueueEvaluatesOneWaiter(int queued) {
    assertThat(evaluationsPerGrant(queued, false)).isEqualTo(evaluationsPerGrant(100, false));
    assertThat(evaluationsPerGrant(queued, false)).isLessThanOrEqualTo(3);
  }

  @ParameterizedTest(name = "{0} queued")
  @ValueSource(ints = {100, 10_000, 100_000})
  void grantingTheHeadOfADecrementQueueEvaluatesNoMoreWaiters(int queued) {
    assertThat(evaluationsPerGrant(queued, true)).isEqualTo(evaluationsPerGrant(100, true));
  }
}
