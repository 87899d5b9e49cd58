package io.semafor.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#cancelled-waits: an asynchronous waiting call's outcome is decided once, by its
 * caller or by the client handing the grant over. Found by CancelRaceTest: a WaitMany {@code
 * awaitAsync} future was cancelled while its report's callbacks ran, so the caller held a cancelled
 * future and a grant it did not count.
 */
class GrantFutureTest {
  @Test
  void aCancelBeforeTheHandingWinsAndTheClientGivesTheGrantBack() {
    GrantFuture<Integer> future = new GrantFuture<>();

    assertThat(future.cancel(true)).isTrue();

    assertThat(future.startHanding()).as("the client must give the grant back").isFalse();
    assertThat(future.isCancelled()).isTrue();
  }

  @Test
  void aCancelOnceTheHandingStartedFailsAndTheFutureCompletesWithTheGrant() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThat(future.startHanding()).isTrue();

    assertThat(future.cancel(true)).as("the callbacks are being called").isFalse();
    assertThat(future.isDone()).isFalse();
    future.handOver(1);

    assertThat(future.isCancelled()).isFalse();
    assertThat(future.join()).isEqualTo(1);
  }

  @Test
  void theCallersOwnCompletionOnceTheHandingStartedChangesNothing() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThat(future.startHanding()).isTrue();

    assertThat(future.complete(7)).isFalse();
    assertThat(future.completeExceptionally(new IllegalStateException())).isFalse();
    future.handOver(1);

    assertThat(future.join()).isEqualTo(1);
  }

  @Test
  void aCallersOrTimeoutBeforeTheHandingWinsAsACancelDoes() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThat(future.orTimeout(1, TimeUnit.NANOSECONDS)).isSameAs(future);
    await().atMost(Duration.ofSeconds(5)).until(future::isDone);

    assertThat(future.startHanding()).isFalse();
    assertThat(future.isCompletedExceptionally()).isTrue();
  }

  @Test
  void aFailedHandingFailsTheFuture() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThat(future.startHanding()).isTrue();

    future.handingFailed(new IllegalStateException("a callback threw"));

    assertThat(future.isCompletedExceptionally()).isTrue();
    assertThat(future.cancel(true)).isFalse();
  }

  @Test
  void completeAsyncGoesThroughTheGateAsCompleteDoes() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThat(future.startHanding()).isTrue();

    assertThat(future.completeAsync(() -> 7, Runnable::run)).isSameAs(future);
    future.handOver(1);

    assertThat(future.join())
        .as("the JDK's completeAsync would have bypassed complete")
        .isEqualTo(1);
  }

  @Test
  void completeAsyncBeforeTheHandingDecides() {
    GrantFuture<Integer> future = new GrantFuture<>();

    assertThat(future.completeAsync(() -> 7, Runnable::run)).isSameAs(future);

    assertThat(future.startHanding()).isFalse();
    assertThat(future.join()).isEqualTo(7);
  }

  @Test
  void obtrudingAnotherOutcomeIsRefused() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThatThrownBy(() -> future.obtrudeValue(7))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> future.obtrudeException(new IllegalStateException()))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void cancellingACancelledFutureSucceedsAsForAnyCompletableFuture() {
    GrantFuture<Integer> future = new GrantFuture<>();
    assertThat(future.cancel(true)).isTrue();
    assertThat(future.cancel(true)).isTrue();
  }

  @Test
  void dependentStagesAreNotGated() {
    GrantFuture<Integer> future = new GrantFuture<>();
    var next = future.thenApply(v -> v + 1);

    assertThat(next).isNotInstanceOf(GrantFuture.class);
    assertThat(next.cancel(true)).isTrue();
    assertThat(future.startHanding()).as("cancelling a dependent stage decides nothing").isTrue();
  }
}
