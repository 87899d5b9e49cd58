package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.ErrorCode;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#limits: limits, each refused with RESOURCE_EXHAUSTED naming it. */
class LimitsTest {

  @Test
  void sessionsBeyondTheLimitAreRefused() {
    Harness h = new Harness(Limits.DEFAULT.withMaxSessions(2));
    h.connect();
    h.connect();
    Result.Failure failure = (Result.Failure) h.answer(new Command.OpenSession(Harness.SECOND));
    assertThat(failure.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(failure.message()).startsWith("maxSessions (2)");
  }

  @Test
  void waitersBeyondTheLimitPerSessionAreRefused() {
    Harness h = new Harness(Limits.DEFAULT.withMaxWaitersPerSession(2));
    TestClient c = h.connect();
    c.create("x", 0);
    c.acquire("x", 1, Operation.FOREVER);
    c.acquire("x", 1, Operation.FOREVER);
    Result.Failure failure = (Result.Failure) c.result(c.acquire("x", 1, Operation.FOREVER));
    assertThat(failure.message()).startsWith("maxWaitersPerSession (2)");
    assertThat(h.status("x").waiters()).isEqualTo(2);
  }

  @Test
  void theWaiterLimitDoesNotRefuseRequestsServedAtOnce() {
    Harness h = new Harness(Limits.DEFAULT.withMaxWaitersPerSession(1));
    TestClient c = h.connect();
    c.create("x", 5);
    c.create("y", 0);
    c.acquire("y", 1, Operation.FOREVER);
    assertThat(c.amount(c.acquire("x", 1, Operation.FOREVER))).isEqualTo(1);
  }

  @Test
  void semaphoresBeyondTheLimitAreRefused() {
    Harness h = new Harness(Limits.DEFAULT.withMaxSemaphores(1));
    TestClient c = h.connect();
    c.create("a", 0);
    Result.Failure failure = (Result.Failure) c.create("b", 0);
    assertThat(failure.message()).startsWith("maxSemaphores (1)");
    assertThat(c.create("a", 0)).isInstanceOf(Result.Created.class);
  }

  @Test
  void aLimitOutOfRangeIsRefusedNamingTheSettingTheBoundAndTheValue() {
    assertThatThrownBy(() -> Limits.DEFAULT.withMaxSessions(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxSessions < 1: 0");
  }
}
