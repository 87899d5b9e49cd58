package io.semafor.it.faults;

import static io.semafor.it.faults.HistoryVerdicts.violations;
import static io.semafor.it.faults.Op.Outcome.OK;
import static io.semafor.it.faults.Op.Outcome.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a client records its leases ({@code FaultWorker.leaseRenewRelease}): a lease found gone ended
 * by itself between the end of its promise (last grant or renewal sent, plus the TTL) and when the
 * client learnt it; a release whose answer never came ends it once, at some moment after it was
 * sent ({@link FaultWorker#NEVER}). The checks then accept a server that keeps those promises and
 * catch one that ends a lease early.
 */
class LeaseHistoryTest {
  private static final String POOL = FaultRun.POOLS.get(0);
  private static final long TTL = 100;

  /**
   * Client 1 leases both permits at 10 (TTL 100: promised until 110) and is cut off; at {@code
   * grantedToOthers} the server grants them to clients 2 and 3; at 300 client 1's renewal says
   * NOT_FOUND, recorded as the lease ending by itself over [110, 300].
   */
  private static List<Op> lapsedLeaseAndTheNextTwo(long grantedToOthers) {
    return List.of(
        Op.acquire(1, POOL, 1, 10, 20, OK, 1, 1),
        Op.acquire(1, POOL, 1, 10, 20, OK, 2, 2),
        Op.release(1, POOL, 1, Math.min(10 + TTL, 300), 300, OK),
        Op.release(1, POOL, 1, Math.min(10 + TTL, 300), 300, OK),
        Op.acquire(2, POOL, 1, grantedToOthers - 10, grantedToOthers, OK, 3, 3),
        Op.acquire(3, POOL, 1, grantedToOthers - 5, grantedToOthers + 1, OK, 4, 4),
        Op.release(2, POOL, 1, 350, 360, OK),
        Op.release(3, POOL, 1, 370, 380, OK),
        Op.read(2, POOL, 400, 410, OK, 2));
  }

  @Test
  void aLeaseThatLapsedAfterItsPromiseMayGoToOthers() {
    assertThat(violations(lapsedLeaseAndTheNextTwo(150))).isEmpty();
  }

  @Test
  void aLeaseEndedBeforeItsPromiseIsAnOverGrant() {
    // the server gave the permits away at 60, while the lease was promised until 110
    assertThat(violations(lapsedLeaseAndTheNextTwo(60)))
        .anyMatch(v -> v.startsWith("over-grant: "));
  }

  @Test
  void aReleaseWithoutAnswerEndsTheLeaseOnceSomewhereAfterItWasSent() {
    List<Op> ops =
        List.of(
            Op.acquire(1, POOL, 1, 10, 20, OK, 1, 1),
            Op.release(1, POOL, 1, 30, FaultWorker.NEVER, OK), // cut off: released or lapsed
            Op.read(2, POOL, 40, 50, OK, 1), // not yet
            Op.read(2, POOL, 200, 210, OK, 2)); // by now
    assertThat(violations(ops)).isEmpty();
  }

  /**
   * Client 1 leases a permit at 10 (promised until 110), is frozen, and sends its renewal at 300,
   * which gets no answer; meanwhile, at 150, the lapsed permit went to client 2 and 3 took the
   * other.
   */
  private static List<Op> renewalSentAfterTheLeaseLapsed(long releaseFrom) {
    return List.of(
        Op.acquire(1, POOL, 1, 10, 20, OK, 1, 1),
        Op.release(1, POOL, 1, releaseFrom, FaultWorker.NEVER, OK),
        Op.acquire(2, POOL, 1, 140, 150, OK, 2, 2),
        Op.acquire(3, POOL, 1, 145, 155, OK, 3, 3),
        Op.release(2, POOL, 1, 350, 360, OK),
        Op.release(3, POOL, 1, 370, 380, OK),
        Op.read(2, POOL, 400, 410, OK, 2));
  }

  @Test
  void aRenewalSentAfterTheLeaseLapsedEndsItNoLaterThanItsPromise() {
    assertThat(violations(renewalSentAfterTheLeaseLapsed(Math.min(10 + TTL, 300)))).isEmpty();
  }

  @Test
  void recordedFromTheRenewalsSendingTheLapsedLeaseReadsAsAnOverGrant() {
    // the recording that a campaign caught: the lease counted held until the frozen client woke
    assertThat(violations(renewalSentAfterTheLeaseLapsed(300)))
        .anyMatch(v -> v.startsWith("over-grant: "));
  }

  @Test
  void aLeaseWhoseGrantWasNeverAnsweredMayHaveComeAndGone() {
    List<Op> ops =
        List.of(
            Op.acquire(1, POOL, 1, 10, 20, UNKNOWN, -1, -1),
            Op.release(1, POOL, 1, 10, FaultWorker.NEVER, UNKNOWN),
            Op.read(2, POOL, 40, 50, OK, 1), // it was granted
            Op.read(2, POOL, 200, 210, OK, 2)); // and lapsed
    assertThat(violations(ops)).isEmpty();
  }
}
