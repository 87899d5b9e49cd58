package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retried requests are applied once (docs/semantics.md#requests, issue 3). */
class RequestIdTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void aRetriedIncrementIsAppliedOnceAndAnsweredTheSame() {
    c.create("x", 0);
    long id = c.send(new Operation.Increment(Name.of("x"), 5));
    Result first = c.result(id);
    Outcome retry =
        h.apply(new Command.Request(c.sessionId, id, new Operation.Increment(Name.of("x"), 5)));
    assertThat(retry.reply()).isNotNull();
    assertThat(retry.reply().result()).isEqualTo(first);
    assertThat(h.value("x")).isEqualTo(5);
  }

  @Test
  void aRetriedRequestKeepsItsOriginalRevision() {
    c.create("x", 0);
    long id = c.send(new Operation.Increment(Name.of("x"), 5));
    long revision = h.revision();
    Outcome retry =
        h.apply(new Command.Request(c.sessionId, id, new Operation.Increment(Name.of("x"), 5)));
    assertThat(retry.reply()).isNotNull();
    assertThat(retry.reply().revision()).isEqualTo(revision);
  }

  @Test
  void aRetriedWaitingRequestIsNotQueuedTwice() {
    c.create("x", 0);
    long id = c.acquire("x", 1, Operation.FOREVER);
    Outcome retry =
        h.apply(
            new Command.Request(
                c.sessionId, id, new Operation.Acquire(Name.of("x"), 1, Operation.FOREVER, false)));
    assertThat(retry.reply()).isNull();
    assertThat(h.status("x").waiters()).isEqualTo(1);
  }

  @Test
  void aRetryAfterTheReplyWasAcknowledgedIsRefused() {
    c.create("x", 0);
    long id = c.send(new Operation.Increment(Name.of("x"), 1));
    c.acknowledge();
    Outcome retry =
        h.apply(new Command.Request(c.sessionId, id, new Operation.Increment(Name.of("x"), 1)));
    assertThat(retry.reply()).isNotNull();
    assertThat(((Result.Failure) retry.reply().result()).message()).startsWith("requestId:");
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void aNonPositiveRequestIdIsInvalid() {
    c.sendAs(0, new Operation.Create(Name.of("x"), 0, SemaphoreOptions.DEFAULT));
    assertThat(((Result.Failure) c.result(0)).message())
        .isEqualTo("requestId: must be positive, was 0");
    assertThat(h.exists("x")).isFalse();
  }

  @Test
  void aSessionThatLeavesTooManyRepliesUnacknowledgedMustAcknowledgeFirst() {
    Harness small = new Harness(Limits.DEFAULT.withMaxUnackedReplies(16));
    TestClient client = small.connect();
    client.acknowledging = false;
    client.create("x", 0);
    for (int i = 1; i < 16; i++) {
      client.increment("x", 1);
    }
    Result.Failure failure = (Result.Failure) client.increment("x", 1);
    assertThat(failure.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(failure.message()).startsWith("maxUnackedReplies");
    assertThat(small.value("x")).isEqualTo(15);

    small.apply(new Command.Acknowledge(client.sessionId, List.of(1L, 2L)));
    assertThat(client.increment("x", 1)).isEqualTo(new Result.Incremented(16));
  }

  @Test
  void acknowledgingIsIdempotent() {
    c.create("x", 2);
    long id = c.acquire("x", 1, 0);
    h.apply(new Command.Acknowledge(c.sessionId, List.of(id)));
    h.apply(new Command.Acknowledge(c.sessionId, List.of(id)));
    assertThat(h.status("x").undelivered()).isZero();
    assertThat(h.value("x")).isEqualTo(1);
  }
}
