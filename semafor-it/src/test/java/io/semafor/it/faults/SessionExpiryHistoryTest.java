package io.semafor.it.faults;

import static io.semafor.it.faults.HistoryVerdicts.violations;
import static io.semafor.it.faults.Op.Outcome.OK;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a client records a permit it lost to its session's expiry (frozen past its TTL): a release
 * over the window in which the server gave it back, from when the session was last certainly alive
 * to when the client heard of the expiry ({@code FaultWorker}). The checks then accept a permit
 * granted to another client during that window, and still catch a real over-grant.
 */
class SessionExpiryHistoryTest {
  private static final String POOL = FaultRun.POOLS.get(0);

  /**
   * Client 1 takes the pool's 2 permits and freezes; at 100 its session expires and the server
   * gives both to clients 2 and 3; at 300 client 1 wakes and learns it. Its permits were certainly
   * held only until 12 (its last answered operation was sent at 11).
   */
  private static List<Op> frozenHolderAndTheNextTwo(long lostWindowStart) {
    return List.of(
        Op.acquire(1, POOL, 1, 10, 20, OK, 1, 1),
        Op.acquire(1, POOL, 1, 11, 21, OK, 2, 2),
        Op.release(1, POOL, 1, lostWindowStart, 300, OK), // the expiry, as recorded
        Op.release(1, POOL, 1, lostWindowStart + 1, 301, OK),
        Op.acquire(2, POOL, 1, 90, 110, OK, 3, 3),
        Op.acquire(3, POOL, 1, 95, 120, OK, 4, 4),
        Op.read(2, POOL, 130, 140, OK, 0),
        Op.release(2, POOL, 1, 150, 160, OK),
        Op.release(3, POOL, 1, 170, 180, OK),
        Op.read(2, POOL, 400, 410, OK, 2));
  }

  @Test
  void permitsLostToAnExpiredSessionMayGoToOthersDuringTheExpiryWindow() {
    assertThat(violations(frozenHolderAndTheNextTwo(12))).isEmpty();
  }

  @Test
  void recordedAsHeldUntilTheClientWokeTheSameGrantsAreAnOverGrant() {
    // a client that ignored the expiry and counted its permits held until it woke
    assertThat(violations(frozenHolderAndTheNextTwo(299)))
        .anyMatch(v -> v.startsWith("over-grant: "));
  }
}
