package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import org.junit.jupiter.api.Test;

/** Set and increment, and the ceiling (docs/semantics.md#set-and-increment, #capacity). */
class SetIncrementTest {
  private static final long MAX = Long.MAX_VALUE;

  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void incrementAddsAndAnswersTheNewValue() {
    c.create("x", 1);
    assertThat(c.increment("x", 4)).isEqualTo(new Result.Incremented(5));
  }

  @Test
  void anyoneMayIncrementSemaphoresHaveNoOwner() {
    c.create("x", 0);
    TestClient stranger = h.connect();
    assertThat(stranger.increment("x", 2)).isEqualTo(new Result.Incremented(2));
  }

  @Test
  void incrementUpTo2To63Minus1Succeeds() {
    c.create("x", MAX - 1);
    assertThat(c.increment("x", 1)).isEqualTo(new Result.Incremented(MAX));
  }

  @Test
  void incrementPast2To63Minus1FailsWithOverflowAndChangesNothing() {
    c.create("x", MAX - 1);
    Result result = c.increment("x", 2);
    assertThat(((Result.Failure) result).code()).isEqualTo(ErrorCode.OVERFLOW);
    assertThat(((Result.Failure) result).message()).startsWith("amount:").contains("2^63-1");
    assertThat(h.value("x")).isEqualTo(MAX - 1);
  }

  @Test
  void incrementCountsWhatIsHeldAgainstTheCeiling() {
    c.create("x", MAX);
    c.acquireOwned("x", 10, 0);
    assertThat(((Result.Failure) c.increment("x", 1)).code()).isEqualTo(ErrorCode.OVERFLOW);
    assertThat(h.value("x")).isEqualTo(MAX - 10);
  }

  @Test
  void incrementPastTheCapacityFailsNamingTheCapacity() {
    c.create("x", 3, SemaphoreOptions.withCapacity(4));
    Result result = c.increment("x", 2);
    assertThat(((Result.Failure) result).message()).contains("capacity 4");
    assertThat(h.value("x")).isEqualTo(3);
  }

  @Test
  void aZeroOrNegativeIncrementIsInvalid() {
    c.create("x", 0);
    assertThat(((Result.Failure) c.increment("x", 0)).message())
        .isEqualTo("amount: must be positive, was 0");
    assertThat(((Result.Failure) c.increment("x", -3)).code())
        .isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void incrementServesWaiters() {
    c.create("x", 0);
    long waiting = c.decrement("x", 1, Operation.FOREVER);
    h.connect().increment("x", 1);
    assertThat(c.amount(waiting)).isEqualTo(1);
  }

  @Test
  void setWritesTheValueAndAnswersThePreviousOne() {
    c.create("x", 7);
    assertThat(c.set("x", 2)).isEqualTo(new Result.ValueSet(7));
    assertThat(h.value("x")).isEqualTo(2);
  }

  @Test
  void setThatRaisesTheValueServesWaiters() {
    c.create("x", 0);
    long waiting = c.acquire("x", 3, Operation.FOREVER);
    h.connect().set("x", 3);
    assertThat(c.amount(waiting)).isEqualTo(3);
  }

  @Test
  void setToZeroReleasesWaitForZeroWaiters() {
    c.create("x", 4);
    long zero = c.awaitZero("x", Operation.FOREVER);
    h.connect().set("x", 0);
    assertThat(c.result(zero)).isInstanceOf(Result.ZeroReached.class);
  }

  @Test
  void setWritesOnlyTheFreeValueAndLeavesWhatIsOwnedAlone() {
    c.create("x", 5, SemaphoreOptions.withCapacity(5));
    c.acquireOwned("x", 2, 0);
    c.set("x", 1);
    assertThat(h.status("x").owned()).isEqualTo(2);
  }

  @Test
  void setPastTheCapacityMinusWhatIsHeldFailsWithOverflow() {
    c.create("x", 5, SemaphoreOptions.withCapacity(5));
    c.acquireOwned("x", 2, 0);
    assertThat(((Result.Failure) c.set("x", 4)).code()).isEqualTo(ErrorCode.OVERFLOW);
    assertThat(h.value("x")).isEqualTo(3);
  }

  @Test
  void aNegativeSetIsInvalid() {
    c.create("x", 5);
    assertThat(((Result.Failure) c.set("x", -1)).message())
        .isEqualTo("value: must not be negative, was -1");
  }
}
