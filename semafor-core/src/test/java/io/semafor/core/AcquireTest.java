package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#takes: all-or-nothing acquire (SysV, JDK). */
class AcquireTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void acquireTakesExactlyTheAmount() {
    c.create("x", 5);
    assertThat(c.amount(c.acquire("x", 3, 0))).isEqualTo(3);
    assertThat(h.value("x")).isEqualTo(2);
  }

  @Test
  void acquireTakesNothingUntilTheWholeAmountIsThere() {
    c.create("x", 2);
    long id = c.acquire("x", 3, Operation.FOREVER);
    assertThat(c.waiting(id)).isTrue();
    assertThat(h.value("x")).isEqualTo(2);

    h.connect().increment("x", 1);

    assertThat(c.amount(id)).isEqualTo(3);
    assertThat(h.value("x")).isZero();
  }

  @Test
  void acquireWithTimeoutZeroThatCannotBeServedAcquiresNothing() {
    c.create("x", 2);
    Result.Granted granted = c.granted(c.acquire("x", 3, 0));
    assertThat(granted.granted()).isFalse();
    assertThat(h.value("x")).isEqualTo(2);
  }

  @Test
  void acquireThatTimesOutAcquiresNothing() {
    c.create("x", 0);
    long id = c.acquire("x", 1, SECOND);
    h.advance(SECOND);
    h.expireWaiter(c, id);
    assertThat(c.granted(id).granted()).isFalse();
  }

  @Test
  void anAcquireLargerThanTheCapacityIsInvalidRatherThanQueuedForever() {
    c.create("x", 3, SemaphoreOptions.withCapacity(3));
    Result result = c.result(c.acquire("x", 4, Operation.FOREVER));
    assertThat(((Result.Failure) result).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(((Result.Failure) result).message()).startsWith("amount:").contains("capacity 3");
    assertThat(h.status("x").waiters()).isZero();
  }

  @Test
  void grantsCarryTheRequestsArrivalSequenceNumber() {
    c.create("x", 0);
    TestClient a = h.connect();
    long first = a.acquire("x", 1, Operation.FOREVER);
    long second = c.acquire("x", 1, Operation.FOREVER);
    c.increment("x", 2);
    assertThat(a.granted(first).sequence()).isLessThan(c.granted(second).sequence());
  }
}
