package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** docs/semantics.md#wait-for-zero: SysV wait-for-zero. */
class AwaitZeroTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void awaitZeroReturnsAtOnceWhenTheValueIsZero() {
    c.create("x", 0);
    assertThat(c.result(c.awaitZero("x", 0))).isInstanceOf(Result.ZeroReached.class);
    assertThat(((Result.ZeroReached) c.result(c.awaitZero("x", 0))).reached()).isTrue();
  }

  @Test
  void awaitZeroWaitsUntilTheValueReachesZeroAndConsumesNothing() {
    c.create("x", 2);
    long id = c.awaitZero("x", Operation.FOREVER);
    TestClient other = h.connect();
    other.decrement("x", 1, 0);
    assertThat(c.waiting(id)).isTrue();

    other.decrement("x", 1, 0);

    assertThat(((Result.ZeroReached) c.result(id)).reached()).isTrue();
    assertThat(h.value("x")).isZero();
  }

  @Test
  void allWaitForZeroWaitersAreReleasedTogether() {
    c.create("x", 1);
    TestClient a = h.connect();
    TestClient b = h.connect();
    long first = a.awaitZero("x", Operation.FOREVER);
    long second = b.awaitZero("x", Operation.FOREVER);

    c.set("x", 0);

    assertThat(a.result(first)).isInstanceOf(Result.ZeroReached.class);
    assertThat(b.result(second)).isInstanceOf(Result.ZeroReached.class);
  }

  @Test
  void aWaitForZeroWaiterNeverHoldsAnyoneBack() {
    c.create("x", 3);
    long zero = c.awaitZero("x", Operation.FOREVER);
    TestClient taker = h.connect();
    long take = taker.acquire("x", 2, 0);
    assertThat(taker.amount(take)).isEqualTo(2);
    assertThat(c.waiting(zero)).isTrue();
  }

  @Test
  void awaitZeroThatTimesOutSaysTheValueWasNotReached() {
    c.create("x", 1);
    long id = c.awaitZero("x", SECOND);
    h.advance(SECOND);
    h.expireWaiter(c, id);
    assertThat(((Result.ZeroReached) c.result(id)).reached()).isFalse();
  }

  @Test
  void awaitZeroWithTimeoutZeroOnAPositiveValueSaysNotReached() {
    c.create("x", 1);
    assertThat(((Result.ZeroReached) c.result(c.awaitZero("x", 0))).reached()).isFalse();
  }
}
