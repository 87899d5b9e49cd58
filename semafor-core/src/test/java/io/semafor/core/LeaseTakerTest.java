package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Who may renew or release a lease (decision 0047): a lease remembers the principal that took it, a
 * taker-only request from another principal's session is refused and changes nothing, and every
 * touch of another principal's lease is an effect for the audit log. Also the refusal of a waiting
 * request the edge proposes when permissions change.
 */
class LeaseTakerTest {
  private static final long TTL = 10_000_000_000L;
  private static final Name X = Name.of("jobs/x");

  private long revision;
  private final SemaphoreMachine m = new SemaphoreMachine();

  private long open(String principal) {
    Outcome o =
        m.apply(
            ++revision,
            0,
            new Command.OpenSession(
                TTL, ClientInfo.NONE, new SessionOwner(principal, Secret.NONE), Secret.NONE));
    return ((Result.SessionOpened) Objects.requireNonNull(o.reply()).result()).sessionId();
  }

  private Outcome apply(long session, long id, Operation op) {
    return m.apply(++revision, 0, new Command.Request(session, id, List.of(), op));
  }

  private Result request(long session, long id, Operation op) {
    return Objects.requireNonNull(apply(session, id, op).reply()).result();
  }

  private long aliceLease(long alice) {
    request(alice, 1, new Operation.Create(X, 2, SemaphoreOptions.DEFAULT));
    return ((Result.LeaseGranted) request(alice, 2, new Operation.AcquireLease(X, 1, TTL, 0)))
        .permitId();
  }

  private long value() {
    return ((Result.SemaphoreStatus) m.query(new Query.Get(X)).result()).value();
  }

  @Test
  void aTakerOnlyRenewOrReleaseOfAnotherPrincipalsLeaseIsRefusedAndChangesNothing() {
    long alice = open("alice");
    long bob = open("bob");
    long permit = aliceLease(alice);

    Outcome renew = apply(bob, 1, new Operation.RenewLease(permit, 1, X, true));
    Outcome release = apply(bob, 2, new Operation.ReleaseLease(permit, X, true));

    for (Outcome o : List.of(renew, release)) {
      Result.Failure f = (Result.Failure) Objects.requireNonNull(o.reply()).result();
      assertThat(f.code()).isEqualTo(ErrorCode.PERMISSION_DENIED);
      assertThat(f.message())
          .contains("permission 'release' on \"jobs/x\"")
          .contains("another principal took")
          .endsWith("bob does not have it");
      assertThat(o.effects())
          .singleElement()
          .isInstanceOfSatisfying(
              Effect.LeaseOfAnother.class,
              e -> {
                assertThat(e.taker()).isEqualTo("alice");
                assertThat(e.refused()).isEqualTo(f.message());
              });
    }
    assertThat(value()).as("the lease still holds its permit").isEqualTo(1);
    assertThat(request(alice, 3, new Operation.RenewLease(permit, TTL, X, true)))
        .isInstanceOf(Result.LeaseRenewed.class);
  }

  @Test
  void theTakersOwnRequestsAreNotAudited() {
    long alice = open("alice");
    long permit = aliceLease(alice);
    Outcome renew = apply(alice, 3, new Operation.RenewLease(permit, TTL, X, true));
    Outcome release = apply(alice, 4, new Operation.ReleaseLease(permit, X, true));
    assertThat(renew.effects()).noneMatch(e -> e instanceof Effect.LeaseOfAnother);
    assertThat(release.effects()).noneMatch(e -> e instanceof Effect.LeaseOfAnother);
    assertThat(((Result.LeaseReleased) Objects.requireNonNull(release.reply()).result()).released())
        .isTrue();
  }

  @Test
  void anotherPrincipalAllowedToTouchAnyLeaseDoesSoAndIsAudited() {
    long alice = open("alice");
    long carol = open("carol");
    long permit = aliceLease(alice);
    Outcome release = apply(carol, 1, new Operation.ReleaseLease(permit, X, false));
    assertThat(((Result.LeaseReleased) Objects.requireNonNull(release.reply()).result()).released())
        .isTrue();
    assertThat(release.effects())
        .filteredOn(e -> e instanceof Effect.LeaseOfAnother)
        .singleElement()
        .isEqualTo(
            new Effect.LeaseOfAnother(
                carol,
                1,
                "release lease " + Long.toUnsignedString(permit) + " on \"jobs/x\"",
                "alice",
                null));
    assertThat(value()).isEqualTo(2);
  }

  @Test
  void aRestoredLeaseStillKnowsItsTaker() throws IOException {
    long alice = open("alice");
    long bob = open("bob");
    long permit = aliceLease(alice);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    m.writeSnapshot(new DataOutputStream(bytes));
    SemaphoreMachine restored =
        SemaphoreMachine.readSnapshot(
            Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    Outcome o =
        restored.apply(
            ++revision,
            0,
            new Command.Request(bob, 1, List.of(), new Operation.RenewLease(permit, 1, X, true)));
    assertThat(((Result.Failure) Objects.requireNonNull(o.reply()).result()).code())
        .isEqualTo(ErrorCode.PERMISSION_DENIED);
  }

  @Test
  void aRefusedWaiterIsAnsweredWithTheFailureAndTakesNothingLater() {
    long alice = open("alice");
    long bob = open("bob");
    request(alice, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT));
    assertThat(apply(bob, 1, new Operation.Acquire(X, 1, Operation.FOREVER, true)).reply())
        .isNull();
    assertThat(m.waitingRequests())
        .containsExactly(new WaitingRequest(bob, 1, "bob", List.of(X), List.of(), List.of()));

    Outcome refused =
        m.apply(
            ++revision,
            0,
            new Command.RefuseWaiter(bob, 1, ErrorCode.PERMISSION_DENIED, "permission 'acquire'"));

    assertThat(refused.effects())
        .filteredOn(e -> e instanceof Effect.Complete)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((Effect.Complete) e).reply().result())
                    .isEqualTo(
                        new Result.Failure(ErrorCode.PERMISSION_DENIED, "permission 'acquire'")));
    assertThat(m.waitingRequests()).isEmpty();
    request(alice, 2, new Operation.Increment(X, 1));
    assertThat(value()).as("the refused waiter took nothing").isEqualTo(1);
    Outcome again =
        m.apply(++revision, 0, new Command.RefuseWaiter(bob, 1, ErrorCode.PERMISSION_DENIED, "x"));
    assertThat(((Result.Expiry) Objects.requireNonNull(again.reply()).result()).applied())
        .isFalse();
  }
}
