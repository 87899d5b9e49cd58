package io.semafor.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.protocol.v1.Granted;
import io.semafor.protocol.v1.Response;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#cancelled-waits, the client's side: a waiting call's grant goes to its caller
 * or to the client closing under it, exactly one of them; closing gives back what came but was not
 * taken, and leaves unacknowledged what had not come.
 */
class ClaimsTest {
  private static final Response GRANT =
      Response.newBuilder().setId(7).setGranted(Granted.newBuilder().setAmount(1)).build();

  private final Claims claims = new Claims();
  private final List<Response> givenBack = new ArrayList<>();

  private Claim open() {
    return claims.open(givenBack::add);
  }

  private void runAll(List<Runnable> giveBacks) {
    giveBacks.forEach(Runnable::run);
  }

  @Test
  void anAnswerIsTheCallersWhenItTakesIt() {
    Claim claim = open();

    assertThat(claim.answered(GRANT)).isTrue();
    assertThat(claim.take()).isTrue();
    runAll(claims.close());

    assertThat(givenBack).as("the caller has it").isEmpty();
  }

  @Test
  void closingBeforeTheAnswerComesSaysToLeaveItUnacknowledgedAndTheCallerWithout() {
    Claim claim = open();

    runAll(claims.close());

    assertThat(claim.answered(GRANT))
        .as("left unacknowledged: the session's end gives the grant back")
        .isFalse();
    assertThat(claim.take()).isFalse();
    assertThat(givenBack).isEmpty();
  }

  @Test
  void closingAfterTheAnswerCameButBeforeTheCallerTookItGivesItBack() {
    Claim claim = open();
    claim.answered(GRANT);

    runAll(claims.close());

    assertThat(givenBack).containsExactly(GRANT);
    assertThat(claim.take()).as("the caller is told it has nothing").isFalse();
  }

  @Test
  void closingAfterTheCallerTookTheAnswerLeavesIt() {
    Claim claim = open();
    claim.answered(GRANT);
    claim.take();

    runAll(claims.close());

    assertThat(givenBack).isEmpty();
    assertThat(claim.take()).isTrue();
  }

  @Test
  void aFailedAnswerHasNothingToGiveBack() {
    Claim claim = open();
    Response refused =
        Response.newBuilder()
            .setId(7)
            .setFailure(
                io.semafor.protocol.v1.Failure.newBuilder()
                    .setCode(io.semafor.protocol.v1.ErrorCode.DELETED))
            .build();
    claim.answered(refused);

    runAll(claims.close());

    assertThat(givenBack).isEmpty();
    assertThat(claim.take()).isFalse();
  }

  @Test
  void aCallOverBeforeTheCloseIsNotTouchedByIt() {
    Claim claim = open();
    claim.answered(GRANT);
    claims.done(claim); // the caller gave up on it and gave it back itself

    runAll(claims.close());

    assertThat(givenBack).isEmpty();
  }

  @Test
  void noWaitingCallStartsOnceClosed() {
    runAll(claims.close());

    assertThatThrownBy(this::open)
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE));
  }
}
