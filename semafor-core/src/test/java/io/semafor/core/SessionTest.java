package io.semafor.core;

import static io.semafor.core.Harness.DEFAULT_TTL;
import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#sessions: sessions, what they own, and what happens when they end. */
class SessionTest {
  private final Harness h = new Harness();
  private final TestClient admin = h.connect();

  @Test
  void openingASessionStartsTrackingItsLiveness() {
    h.connect(3 * SECOND);
    assertThat(h.lastEffects()).hasSize(1);
    assertThat(h.lastEffects().get(0)).isInstanceOf(Effect.SessionStarted.class);
    assertThat(((Effect.SessionStarted) h.lastEffects().get(0)).ttl()).isEqualTo(3 * SECOND);
  }

  @Test
  void aNonPositiveTtlIsInvalid() {
    Result result = h.answer(new Command.OpenSession(0));
    assertThat(((Result.Failure) result).message()).isEqualTo("ttl: must be positive, was 0");
  }

  @Test
  void closeGivesBackWhatTheSessionOwnsAtOnce() {
    admin.create("x", 3);
    TestClient c = h.connect();
    c.acquireOwned("x", 2, 0);
    assertThat(c.close()).isEqualTo(new Result.SessionClosed());
    assertThat(h.value("x")).isEqualTo(3);
    assertThat(h.lastEffects()).contains(new Effect.SessionEnded(c.sessionId));
  }

  @Test
  void aNonOwnedTakeIsConsumedAndNotGivenBackAfterItWasAcknowledged() {
    admin.create("x", 3);
    TestClient c = h.connect();
    c.acquire("x", 2, 0);
    c.acknowledge();
    c.close();
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void expiryGivesBackWhatTheSessionOwns() {
    admin.create("x", 3);
    TestClient c = h.connect();
    c.acquireOwned("x", 3, 0);
    h.advance(DEFAULT_TTL);
    assertThat(h.expireSession(c)).isEqualTo(new Result.Expiry(true));
    assertThat(h.value("x")).isEqualTo(3);
  }

  @Test
  void anExpiryBeforeTheTtlHasPassedSinceTheLastCommandIsIgnored() {
    admin.create("x", 3);
    TestClient c = h.connect();
    h.advance(5 * SECOND);
    c.acquireOwned("x", 1, 0);
    h.advance(DEFAULT_TTL - 1);
    assertThat(h.expireSession(c)).isEqualTo(new Result.Expiry(false));
    assertThat(h.status("x").owned()).isEqualTo(1);
  }

  @Test
  void expiryRemovesTheSessionsWaiters() {
    admin.create("x", 0);
    TestClient c = h.connect();
    long waiting = c.acquire("x", 1, Operation.FOREVER);
    h.advance(DEFAULT_TTL);
    h.expireSession(c);
    assertThat(h.status("x").waiters()).isZero();
    assertThat(((Result.Failure) c.result(waiting)).code()).isEqualTo(ErrorCode.SESSION_EXPIRED);
    admin.increment("x", 1);
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void expiryGivesBackGrantsThatWereNeverDelivered() {
    admin.create("x", 0);
    TestClient c = h.connect();
    c.acknowledging = false; // the grant is sent, but the client never says it got it
    long waiting = c.decrement("x", 5, Operation.FOREVER);
    admin.increment("x", 4);
    assertThat(c.amount(waiting)).isEqualTo(4);
    assertThat(h.value("x")).isZero();
    assertThat(h.status("x").undelivered()).isEqualTo(4);

    h.advance(DEFAULT_TTL);
    h.expireSession(c);

    assertThat(h.value("x")).isEqualTo(4);
  }

  @Test
  void anAcknowledgementFromAKeepAliveMakesTheGrantTheClients() {
    admin.create("x", 2);
    TestClient c = h.connect();
    c.acquire("x", 2, 0);
    c.acknowledge();
    assertThat(h.status("x").undelivered()).isZero();
    h.advance(DEFAULT_TTL);
    h.expireSession(c);
    assertThat(h.value("x")).isZero();
  }

  @Test
  void whatGoesBackServesWaiters() {
    admin.create("x", 1);
    TestClient holder = h.connect();
    holder.acquireOwned("x", 1, 0);
    long waiting = admin.acquire("x", 1, Operation.FOREVER);
    holder.close();
    assertThat(admin.amount(waiting)).isEqualTo(1);
  }

  @Test
  void requestsOfAnEndedSessionFailWithSessionExpired() {
    admin.create("x", 1);
    TestClient c = h.connect();
    c.close();
    assertThat(((Result.Failure) c.increment("x", 1)).code()).isEqualTo(ErrorCode.SESSION_EXPIRED);
  }

  @Test
  void releaseGivesBackOwnedPermits() {
    admin.create("x", 3);
    admin.acquireOwned("x", 2, 0);
    assertThat(admin.release("x", 1)).isEqualTo(new Result.Released(1));
    assertThat(h.value("x")).isEqualTo(2);
    assertThat(h.status("x").owned()).isEqualTo(1);
  }

  @Test
  void releasingMoreThanTheSessionOwnsIsInvalidAndChangesNothing() {
    admin.create("x", 3);
    admin.acquireOwned("x", 1, 0);
    Result.Failure failure = (Result.Failure) admin.release("x", 2);
    assertThat(failure.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(failure.message()).isEqualTo("amount: releases 2 of \"x\" but the session owns 1");
    assertThat(h.value("x")).isEqualTo(2);
    assertThat(h.status("x").owned()).isEqualTo(1);
  }

  @Test
  void releasingWhatWasTakenWithoutOwnedIsInvalid() {
    admin.create("x", 3);
    admin.acquire("x", 1, 0);
    assertThat(((Result.Failure) admin.release("x", 1)).code())
        .isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void maxPerSessionRefusesAFurtherOwnedAcquisitionWithAlreadyHeld() {
    admin.create("x", 3, SemaphoreOptions.withCapacity(3).maxPerSession(1));
    admin.acquireOwned("x", 1, 0);
    Result.Failure failure = (Result.Failure) admin.result(admin.acquireOwned("x", 1, 0));
    assertThat(failure.code()).isEqualTo(ErrorCode.ALREADY_HELD);
    assertThat(h.value("x")).isEqualTo(2);
  }

  @Test
  void maxPerSessionCountsRequestsStillWaiting() {
    admin.create("x", 0, SemaphoreOptions.withCapacity(3).maxPerSession(1));
    admin.acquireOwned("x", 1, Operation.FOREVER);
    Result.Failure failure = (Result.Failure) admin.result(admin.acquireOwned("x", 1, 0));
    assertThat(failure.code()).isEqualTo(ErrorCode.ALREADY_HELD);
  }

  @Test
  void maxPerSessionIsPerSession() {
    admin.create("x", 3, SemaphoreOptions.withCapacity(3).maxPerSession(1));
    admin.acquireOwned("x", 1, 0);
    TestClient other = h.connect();
    assertThat(other.amount(other.acquireOwned("x", 1, 0))).isEqualTo(1);
  }

  @Test
  void maxPerSessionAllowsAnotherAcquisitionAfterRelease() {
    admin.create("x", 3, SemaphoreOptions.withCapacity(3).maxPerSession(1));
    admin.acquireOwned("x", 1, 0);
    admin.release("x", 1);
    assertThat(admin.amount(admin.acquireOwned("x", 1, 0))).isEqualTo(1);
  }

  @Test
  void anOwnedDecrementIsUndoneLikeAnOwnedAcquire() {
    admin.create("x", 3);
    TestClient c = h.connect();
    c.decrementOwned("x", 5, 0);
    assertThat(h.value("x")).isZero();
    c.close();
    assertThat(h.value("x")).isEqualTo(3);
  }

  @Test
  void aSessionCountsOnlyItsOwnCommandsAsSignsOfLife() {
    TestClient c = h.connect();
    h.advance(DEFAULT_TTL / 2);
    c.acknowledge();
    h.advance(DEFAULT_TTL / 2);
    assertThat(h.expireSession(c)).isEqualTo(new Result.Expiry(false));
    h.advance(DEFAULT_TTL / 2);
    assertThat(h.expireSession(c)).isEqualTo(new Result.Expiry(true));
  }

  @Test
  void theMachineListsLiveSessionsForAnEdgeThatTakesOver() {
    TestClient c = h.connect(7 * SECOND);
    assertThat(h.machine.sessions())
        .containsExactly(
            new Effect.SessionStarted(admin.sessionId, DEFAULT_TTL),
            new Effect.SessionStarted(c.sessionId, 7 * SECOND));
    c.close();
    assertThat(h.machine.sessions())
        .isEqualTo(List.of(new Effect.SessionStarted(admin.sessionId, DEFAULT_TTL)));
  }
}
