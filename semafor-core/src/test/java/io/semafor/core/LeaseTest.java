package io.semafor.core;

import static io.semafor.core.Harness.DEFAULT_TTL;
import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#leases: leases with their own TTL, released by permit id from anywhere. */
class LeaseTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  private Result.LeaseGranted lease(TestClient client, String name, long amount, long ttl) {
    return (Result.LeaseGranted) client.result(client.acquireLease(name, amount, ttl, 0));
  }

  @Test
  void aLeaseHasAPermitIdAFencingTokenAndAnEnd() {
    c.create("x", 2);
    h.advance(SECOND);
    Result.LeaseGranted lease = lease(c, "x", 2, 5 * SECOND);
    assertThat(lease.permitId()).isPositive();
    assertThat(lease.token()).isPositive();
    assertThat(lease.amount()).isEqualTo(2);
    assertThat(lease.expiresAt()).isEqualTo(6 * SECOND);
    assertThat(h.lastEffects())
        .contains(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.permitId()), 6 * SECOND));
    assertThat(h.value("x")).isZero();
  }

  @Test
  void anExpiredLeaseGivesItsPermitsBack() {
    c.create("x", 2);
    Result.LeaseGranted lease = lease(c, "x", 2, 5 * SECOND);
    h.advance(5 * SECOND);
    assertThat(h.expireLease(lease.permitId())).isEqualTo(new Result.Expiry(true));
    assertThat(h.value("x")).isEqualTo(2);
  }

  @Test
  void aLeaseIsNeverExpiredBeforeItsEnd() {
    c.create("x", 2);
    Result.LeaseGranted lease = lease(c, "x", 2, 5 * SECOND);
    h.advance(5 * SECOND - 1);
    assertThat(h.expireLease(lease.permitId())).isEqualTo(new Result.Expiry(false));
    assertThat(h.value("x")).isZero();
  }

  @Test
  void renewMovesTheEnd() {
    c.create("x", 1);
    Result.LeaseGranted lease = lease(c, "x", 1, 5 * SECOND);
    h.advance(4 * SECOND);
    assertThat(c.renew(lease.permitId(), 5 * SECOND))
        .isEqualTo(new Result.LeaseRenewed(9 * SECOND));
    h.advance(SECOND);
    assertThat(h.expireLease(lease.permitId())).isEqualTo(new Result.Expiry(false));
    h.advance(4 * SECOND);
    assertThat(h.expireLease(lease.permitId())).isEqualTo(new Result.Expiry(true));
  }

  @Test
  void renewOfAnUnknownOrExpiredLeaseIsNotFound() {
    c.create("x", 1);
    Result.LeaseGranted lease = lease(c, "x", 1, SECOND);
    h.advance(SECOND);
    h.expireLease(lease.permitId());
    Result.Failure failure = (Result.Failure) c.renew(lease.permitId(), SECOND);
    assertThat(failure.code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(failure.message()).startsWith("permitId:");
  }

  @Test
  void anySessionMayReleaseALeaseByItsId() {
    c.create("x", 1);
    Result.LeaseGranted lease = lease(c, "x", 1, 60 * SECOND);
    TestClient other = h.connect();
    assertThat(other.releaseLease(lease.permitId())).isEqualTo(new Result.LeaseReleased(true));
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void releasingALeaseTwiceIsHarmlessAndSaysSo() {
    c.create("x", 1);
    Result.LeaseGranted lease = lease(c, "x", 1, 60 * SECOND);
    c.releaseLease(lease.permitId());
    assertThat(c.releaseLease(lease.permitId())).isEqualTo(new Result.LeaseReleased(false));
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void aDeliveredLeaseOutlivesItsSession() {
    c.create("x", 1);
    TestClient holder = h.connect();
    lease(holder, "x", 1, 60 * SECOND);
    holder.acknowledge();
    holder.close();
    assertThat(h.value("x")).isZero();
    assertThat(h.status("x").leased()).isEqualTo(1);
  }

  @Test
  void aLeaseGrantNeverDeliveredGoesBackWhenItsSessionExpires() {
    c.create("x", 1);
    TestClient holder = h.connect();
    holder.acknowledging = false;
    lease(holder, "x", 1, 60 * SECOND);
    h.advance(DEFAULT_TTL);
    h.expireSession(holder);
    assertThat(h.value("x")).isEqualTo(1);
    assertThat(h.status("x").leased()).isZero();
  }

  @Test
  void aLeaseWaitsLikeAnAcquire() {
    c.create("x", 0);
    long id = c.acquireLease("x", 1, 10 * SECOND, Operation.FOREVER);
    assertThat(c.waiting(id)).isTrue();
    h.advance(SECOND);
    h.connect().increment("x", 1);
    Result.LeaseGranted lease = (Result.LeaseGranted) c.result(id);
    assertThat(lease.expiresAt()).isEqualTo(11 * SECOND); // the TTL runs from the grant
  }

  @Test
  void aLeaseThatTimesOutIsNotGranted() {
    c.create("x", 0);
    long id = c.acquireLease("x", 1, 10 * SECOND, SECOND);
    h.advance(SECOND);
    h.expireWaiter(c, id);
    assertThat(((Result.LeaseGranted) c.result(id)).granted()).isFalse();
  }

  @Test
  void leasesHoldSlotsOnASlottedSemaphore() {
    c.create("x", 3, SemaphoreOptions.withCapacity(3));
    c.acquireOwned("x", 1, 0);
    Result.LeaseGranted lease = lease(c, "x", 2, 60 * SECOND);
    assertThat(lease.slots()).containsExactly(2L, 3L);
    c.releaseLease(lease.permitId());
    assertThat(lease(c, "x", 1, 60 * SECOND).slots()).isEqualTo(List.of(2L));
  }

  @Test
  void leasesAreNotCountedByMaxPerSession() {
    c.create("x", 3, SemaphoreOptions.withCapacity(3).maxPerSession(1));
    c.acquireOwned("x", 1, 0);
    assertThat(lease(c, "x", 2, 60 * SECOND).granted()).isTrue();
  }
}
