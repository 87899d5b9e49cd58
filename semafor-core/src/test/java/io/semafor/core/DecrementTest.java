package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** docs/semantics.md#takes: IRIS's partial decrement. */
class DecrementTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void decrementTakesWhatIsThereUpToTheAmount() {
    c.create("x", 2);
    long id = c.decrement("x", 10, 0);
    assertThat(c.amount(id)).isEqualTo(2);
    assertThat(h.value("x")).isZero();
  }

  @Test
  void decrementTakesTheFullAmountWhenThereIsEnough() {
    c.create("x", 7);
    assertThat(c.amount(c.decrement("x", 3, 0))).isEqualTo(3);
    assertThat(h.value("x")).isEqualTo(4);
  }

  @Test
  void decrementWaitsWhileTheValueIsZero() {
    c.create("x", 0);
    long id = c.decrement("x", 3, Operation.FOREVER);
    assertThat(c.waiting(id)).isTrue();

    h.connect().increment("x", 2);

    assertThat(c.amount(id)).isEqualTo(2);
  }

  @Test
  void decrementWithTimeoutZeroAnswersZeroAtOnceWhenNothingIsThere() {
    c.create("x", 0);
    long id = c.decrement("x", 3, 0);
    assertThat(c.granted(id).amount()).isZero();
    assertThat(c.granted(id).granted()).isFalse();
  }

  @Test
  void decrementThatTimesOutAnswersZero() {
    c.create("x", 0);
    long id = c.decrement("x", 1, 2 * SECOND);
    h.advance(2 * SECOND);
    assertThat(h.expireWaiter(c, id)).isEqualTo(new Result.Expiry(true));
    assertThat(c.amount(id)).isZero();
  }

  @Test
  void aTimeoutIsNeverAppliedBeforeItsDeadline() {
    c.create("x", 0);
    long id = c.decrement("x", 1, 2 * SECOND);
    h.advance(2 * SECOND - 1);
    assertThat(h.expireWaiter(c, id)).isEqualTo(new Result.Expiry(false));
    assertThat(c.waiting(id)).isTrue();
    assertThat(h.lastEffects())
        .contains(new Effect.ArmTimer(new TimerKey.WaiterTimeout(c.sessionId, id), 2 * SECOND));
  }

  @Test
  void aFiniteTimeoutArmsATimerAtItsDeadline() {
    c.create("x", 0);
    h.advance(5 * SECOND);
    long id = c.decrement("x", 1, 2 * SECOND);
    assertThat(h.lastEffects())
        .containsExactly(
            new Effect.ArmTimer(new TimerKey.WaiterTimeout(c.sessionId, id), 7 * SECOND));
  }

  @Test
  void aWaiterServedBeforeItsDeadlineHasItsTimerCancelled() {
    c.create("x", 0);
    long id = c.decrement("x", 1, 2 * SECOND);
    h.connect().increment("x", 1);
    assertThat(h.lastEffects())
        .contains(new Effect.CancelTimer(new TimerKey.WaiterTimeout(c.sessionId, id)));
  }

  @Test
  void waitersOnAZeroValueAreServedInArrivalOrder() {
    c.create("x", 0);
    TestClient a = h.connect();
    TestClient b = h.connect();
    long first = a.decrement("x", 1, Operation.FOREVER);
    long second = b.decrement("x", 1, Operation.FOREVER);

    c.increment("x", 1);
    assertThat(a.amount(first)).isEqualTo(1);
    assertThat(b.waiting(second)).isTrue();

    c.increment("x", 1);
    assertThat(b.amount(second)).isEqualTo(1);
  }

  @Test
  void aPartialDecrementAtTheHeadTakesWhatIsThereAndTheNextIsConsidered() {
    c.create("x", 0);
    TestClient a = h.connect();
    TestClient b = h.connect();
    long first = a.decrement("x", 2, Operation.FOREVER);
    long second = b.decrement("x", 5, Operation.FOREVER);

    c.increment("x", 6);

    assertThat(a.amount(first)).isEqualTo(2);
    assertThat(b.amount(second)).isEqualTo(4);
  }

  @Test
  void underFifoADecrementWaitsBehindAHeldBackWaiterEvenWhenTheValueIsPositive() {
    c.create("x", 3);
    TestClient writer = h.connect();
    long big = writer.acquire("x", 10, Operation.FOREVER);

    long small = c.decrement("x", 1, Operation.FOREVER);

    assertThat(c.waiting(small)).isTrue();
    assertThat(h.value("x")).isEqualTo(3);
    assertThat(writer.waiting(big)).isTrue();
  }

  @Test
  void aNonPositiveAmountIsInvalid() {
    c.create("x", 1);
    Result result = c.result(c.decrement("x", 0, 0));
    assertThat(((Result.Failure) result).message()).isEqualTo("amount: must be positive, was 0");
  }

  @Test
  void aTimeoutBelowMinusOneIsInvalid() {
    c.create("x", 1);
    Result result = c.result(c.decrement("x", 1, -2));
    assertThat(((Result.Failure) result).message()).startsWith("timeout:");
  }

  @Test
  void cancelWithdrawsAWaitingDecrementWhichAnswersZero() {
    c.create("x", 0);
    long id = c.decrement("x", 1, Operation.FOREVER);
    assertThat(c.cancel(id)).isEqualTo(new Result.Cancelled(true));
    assertThat(c.amount(id)).isZero();
    h.connect().increment("x", 1);
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void cancelOfARequestThatNoLongerWaitsSaysSo() {
    c.create("x", 1);
    long id = c.decrement("x", 1, 0);
    assertThat(c.cancel(id)).isEqualTo(new Result.Cancelled(false));
    assertThat(c.amount(id)).isEqualTo(1);
  }
}
