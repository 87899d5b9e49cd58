package io.semafor.server.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Secret;
import io.semafor.core.SessionOwner;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Unwatch;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.Welcome;
import io.semafor.server.security.Access;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The rules of a connection's session machine, one per test, on a fake clock and a fake node: what
 * it answers and proposes for each frame and outcome, and when it gives up on a connection.
 */
class ServerSessionTest {
  static final Instant EPOCH = Instant.parse("2026-11-29T00:00:00Z");
  static final SessionRules RULES =
      new SessionRules(
          Duration.ofSeconds(10),
          Duration.ofSeconds(60),
          Duration.ofSeconds(30),
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          1_024,
          1 << 20);
  static final Peer PEER = new Peer("/127.0.0.1:50000", "127.0.0.1");

  final TestNode node = new TestNode();
  final ServerSession machine = new ServerSession(RULES, node, random(), PEER, at(0));

  // ------------------------------------------------------------------ Hello: open and resume

  @Test
  void aHelloProposesOpeningASessionWithTheDefaultTtl() {
    List<ServerEffect> effects = machine.received(h(hello()), at(1));

    assertThat(effects).singleElement().isInstanceOf(ServerEffect.OpenSession.class);
    Command.OpenSession open = ((ServerEffect.OpenSession) effects.get(0)).command();
    assertThat(open.ttl()).isEqualTo(Duration.ofSeconds(30).toNanos());
    assertThat(open.client().name()).isEqualTo("test");
  }

  @Test
  void theOpenedSessionIsAttachedBeforeItsWelcomeIsSent() {
    machine.received(h(hello()), at(1));
    node.live(7, Duration.ofSeconds(30).toNanos(), SessionOwner.NONE);

    List<ServerEffect> effects = machine.opened(7);

    assertThat(effects).hasSize(2);
    assertThat(effects.get(0)).isEqualTo(new ServerEffect.Attach(7));
    Welcome welcome = sent(effects.get(1)).getWelcome();
    assertThat(welcome.getSessionId()).isEqualTo(7);
    assertThat(welcome.getResumed()).isFalse();
    assertThat(welcome.getSessionSecret().size()).isEqualTo(ServerSession.SECRET_BYTES);
    assertThat(welcome.getRevision()).isEqualTo(40);
    assertThat(machine.sessionId()).isEqualTo(7);
  }

  @Test
  void theSecretInTheWelcomeIsTheOneTheSessionsOwnerWasGiven() {
    List<ServerEffect> effects = machine.received(h(hello()), at(1));
    SessionOwner owner = ((ServerEffect.OpenSession) effects.get(0)).command().owner();
    node.live(7, 1, owner);

    Welcome welcome = sent(machine.opened(7).get(1)).getWelcome();

    assertThat(owner.admits("", Secret.digestOf(welcome.getSessionSecret().toByteArray())))
        .isTrue();
  }

  @Test
  void anOpenTheNodeRefusedIsAFailedWelcomeAndGivesItsQuotaBack() {
    machine.received(h(hello()), at(1));
    assertThat(node.quotaTaken).containsEntry("127.0.0.1", 1);

    List<ServerEffect> effects = machine.openFailed(ErrorCode.RESOURCE_EXHAUSTED, "maxSessions");

    assertThat(sent(effects.get(0)).getWelcome().getFailure().getCode().name())
        .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED.name());
    assertThat(node.quotaTaken).containsEntry("127.0.0.1", 0);
  }

  @Test
  void anOpenedSessionCountsAgainstItsOwnersQuotaUntilItEnds() {
    open(7);

    assertThat(node.counted).containsEntry(7L, "127.0.0.1");
    assertThat(node.quotaTaken).containsEntry("127.0.0.1", 1);
  }

  @Test
  void aFullQuotaRefusesTheOpenWithResourceExhausted() {
    node.sessionQuota = 0;

    List<ServerEffect> effects = machine.received(h(hello()), at(1));

    Welcome welcome = sent(effects.get(0)).getWelcome();
    assertThat(welcome.getFailure().getCode().name())
        .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED.name());
    assertThat(effects).noneMatch(e -> e instanceof ServerEffect.OpenSession);
  }

  @Test
  void aTtlOutsideTheServersBoundsIsRefusedNamingSessionTtl() {
    List<ServerEffect> effects =
        machine.received(h(hello().setSessionTtlNs(Duration.ofHours(2).toNanos())), at(1));

    Welcome welcome = sent(effects.get(0)).getWelcome();
    assertThat(welcome.getFailure().getCode().name()).isEqualTo(ErrorCode.INVALID_ARGUMENT.name());
    assertThat(welcome.getFailure().getMessage()).startsWith("sessionTtl: ");
    assertThat(node.quotaTaken).isEmpty();
  }

  @Test
  void aHelloOfAnotherProtocolVersionClosesNamingProtocolVersion() {
    List<ServerEffect> effects = machine.received(h(hello().setProtocolVersion(9)), at(1));

    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.INVALID_ARGUMENT.name());
    assertThat(fatalMessage(effects)).startsWith("protocolVersion: ");
  }

  @Test
  void aSecondHelloOnAConnectionWithASessionCloses() {
    open(7);

    List<ServerEffect> effects = machine.received(h(hello()), at(2));

    assertThat(fatalMessage(effects)).startsWith("hello: this connection already has a session");
  }

  @Test
  void aResumeWithTheSessionsSecretSendsItsWelcomeThenAttaches() {
    byte[] secret = {1, 2, 3};
    node.live(9, 5_000_000_000L, new SessionOwner("", Secret.digestOf(secret)));

    List<ServerEffect> effects =
        machine.received(
            h(hello().setSessionId(9).setSessionSecret(ByteString.copyFrom(secret))), at(1));

    Welcome welcome = sent(effects.get(0)).getWelcome();
    assertThat(welcome.getResumed()).isTrue();
    assertThat(welcome.getSessionTtlNs()).isEqualTo(5_000_000_000L);
    assertThat(welcome.getSessionSecret().isEmpty()).isTrue();
    assertThat(effects.get(1)).isEqualTo(new ServerEffect.Attach(9));
  }

  @Test
  void aResumeWithAWrongSecretIsAnsweredAsASessionThatDoesNotExistAndAudited() {
    node.live(9, 1, new SessionOwner("", Secret.digestOf(new byte[] {1})));

    List<ServerEffect> wrong =
        machine.received(
            h(hello().setSessionId(9).setSessionSecret(ByteString.copyFrom(new byte[] {2}))),
            at(1));
    List<ServerEffect> missing =
        new ServerSession(RULES, node, random(), PEER, at(0))
            .received(h(hello().setSessionId(10)), at(1));

    assertThat(sent(last(wrong)).getWelcome().getFailure())
        .isEqualTo(
            sent(last(missing)).getWelcome().getFailure().toBuilder()
                .setMessage("sessionId: session 9 does not exist or has ended")
                .build());
    assertThat(wrong.get(0)).isInstanceOf(ServerEffect.Audit.class);
    assertThat(wrong).noneMatch(e -> e instanceof ServerEffect.Attach);
  }

  @Test
  void aFollowerAnswersHelloWithNotLeaderAndItsLeadersAddress() {
    node.leads = false;
    node.leaderHint = "10.0.0.2:7500";

    List<ServerEffect> effects = machine.received(h(hello()), at(1));

    Welcome welcome = sent(effects.get(0)).getWelcome();
    assertThat(welcome.getFailure().getCode().name()).isEqualTo(ErrorCode.NOT_LEADER.name());
    assertThat(welcome.getFailure().getLeader()).isEqualTo("10.0.0.2:7500");
  }

  @Test
  void aHelloWithoutSessionIsWelcomedAndOpensNothing() {
    List<ServerEffect> effects = machine.received(h(hello().setNoSession(true)), at(1));

    assertThat(effects).hasSize(1);
    assertThat(sent(effects.get(0)).getWelcome().getSessionId()).isZero();
    assertThat(node.quotaTaken).isEmpty();
  }

  // ------------------------------------------------------------------ credentials

  @Test
  void aRefusedTokenIsAuditedAndClosesWithAFailedWelcome() throws Exception {
    enforce(null);

    List<ServerEffect> effects = machine.received(h(hello().setToken("smf.nope")), at(1));

    assertThat(effects.get(0)).isInstanceOf(ServerEffect.Audit.class);
    ServerFrame last = ((ServerEffect.SendAndClose) effects.get(1)).frame();
    assertThat(last.getWelcome().getFailure().getCode().name())
        .isEqualTo(ErrorCode.UNAUTHENTICATED.name());
    assertThat(machine.closed()).isTrue();
  }

  @Test
  void aConnectionKeepsThePrincipalOfItsFirstHello() throws Exception {
    String alice = enforce(null);
    String bob = issue("bob", null);
    machine.received(h(hello().setToken(alice).setNoSession(true)), at(1));

    List<ServerEffect> effects = machine.received(h(hello().setToken(bob)), at(2));

    assertThat(fatalMessage(effects)).contains("a connection keeps its principal");
  }

  @Test
  void aPrincipalAtItsConnectionCapIsRefusedWithResourceExhausted() throws Exception {
    String alice = enforce(null);
    node.principalCap = 0;

    List<ServerEffect> effects = machine.received(h(hello().setToken(alice)), at(1));

    ServerFrame last = ((ServerEffect.SendAndClose) effects.get(0)).frame();
    assertThat(last.getWelcome().getFailure().getCode().name())
        .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED.name());
  }

  @Test
  void aClosedConnectionGivesBackItsPrincipalsCount() throws Exception {
    String alice = enforce(null);
    machine.received(h(hello().setToken(alice).setNoSession(true)), at(1));
    assertThat(node.principals).containsEntry("alice", 1);

    machine.disconnected();

    assertThat(node.principals).containsEntry("alice", 0);
  }

  @Test
  void anExpiringTokenSetsTheDeadlineAndItsExpiryRefusesTheWaitersAndCloses() throws Exception {
    String alice = enforce(EPOCH.plusSeconds(5));
    machine.received(h(hello().setToken(alice)), at(1));
    node.live(7, Duration.ofSeconds(30).toNanos(), SessionOwner.NONE);
    machine.opened(7);
    assertThat(machine.nextDeadline()).isEqualTo(at(5_000).nanos());

    List<ServerEffect> effects = machine.tick(at(5_000));

    assertThat(effects.get(0)).isInstanceOf(ServerEffect.RefuseWaiting.class);
    assertThat(((ServerEffect.RefuseWaiting) effects.get(0)).sessionId()).isEqualTo(7);
    assertThat(effects.get(1)).isInstanceOf(ServerEffect.Audit.class);
    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.UNAUTHENTICATED.name());
  }

  @Test
  void aFrameAfterTheTokenExpiredIsNotHandled() throws Exception {
    String alice = enforce(EPOCH.plusSeconds(5));
    open(7, hello().setToken(alice));

    List<ServerEffect> effects = machine.received(keepAlive(0).build(), at(6_000));

    assertThat(effects).noneMatch(e -> e instanceof ServerEffect.Heard);
    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.UNAUTHENTICATED.name());
  }

  @Test
  void aReloadThatRevokesTheTokenNoLongerAdmitsTheConnection() throws Exception {
    String alice = enforce(null);
    machine.received(h(hello().setToken(alice).setNoSession(true)), at(1));

    boolean admitted = machine.stillAdmitted(load(List.of()), EPOCH.plusSeconds(1));

    assertThat(admitted).isFalse();
  }

  // ------------------------------------------------------------------ requests and keep-alives

  @Test
  void aRequestBeforeHelloClosesNamingTheFrame() {
    List<ServerEffect> effects = machine.received(request(1).build(), at(1));

    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.INVALID_ARGUMENT.name());
    assertThat(fatalMessage(effects)).startsWith("request: no session");
  }

  @Test
  void aRequestIsProposedForItsSessionWhichIsHeardFrom() {
    open(7);

    List<ServerEffect> effects = machine.received(request(3, 1, 2).build(), at(2));

    assertThat(effects.get(0)).isEqualTo(new ServerEffect.Heard(7));
    Command.Request command = ((ServerEffect.SubmitRequest) effects.get(1)).command();
    assertThat(command.sessionId()).isEqualTo(7);
    assertThat(command.requestId()).isEqualTo(3);
    assertThat(command.acks()).containsExactly(1L, 2L);
  }

  @Test
  void aMalformedRequestIsRefusedNamingItsArgumentAndProposesNothing() {
    open(7);

    List<ServerEffect> effects =
        machine.received(
            ClientFrame.newBuilder().setRequest(Request.newBuilder().setId(3)).build(), at(2));

    ServerFrame answer = sent(last(effects));
    assertThat(answer.getResponse().getId()).isEqualTo(3);
    assertThat(answer.getResponse().getFailure().getMessage()).startsWith("op: ");
    assertThat(effects).noneMatch(e -> e instanceof ServerEffect.SubmitRequest);
  }

  @Test
  void aRequestRefusedHereWithAcknowledgementsIsAnsweredOnceTheyAreApplied() {
    open(7);

    List<ServerEffect> effects =
        machine.received(
            ClientFrame.newBuilder().setRequest(Request.newBuilder().setId(3).addAcks(2)).build(),
            at(2));

    ServerEffect.Acknowledge ack = (ServerEffect.Acknowledge) last(effects);
    assertThat(ack.command().acks()).containsExactly(2L);
    assertThat(ack.then()).isNotNull();
    assertThat(machine.acknowledged(ack.then())).containsExactly(new ServerEffect.Send(ack.then()));
  }

  @Test
  void aRequestForAnotherPrincipalsNameIsRefusedAuditedAndNotProposed() throws Exception {
    String alice = enforce(null);
    open(7, hello().setToken(alice));

    List<ServerEffect> effects = machine.received(request(3).build(), at(2)); // name "b/x"

    assertThat(effects).anyMatch(e -> e instanceof ServerEffect.Audit);
    assertThat(sent(last(effects)).getResponse().getFailure().getCode().name())
        .isEqualTo(ErrorCode.PERMISSION_DENIED.name());
    assertThat(effects).noneMatch(e -> e instanceof ServerEffect.SubmitRequest);
  }

  @Test
  void aPlainKeepAliveIsPongedAtOnce() {
    open(7);

    List<ServerEffect> effects = machine.received(keepAlive(0).build(), at(2));

    assertThat(sent(last(effects)).hasPong()).isTrue();
  }

  @Test
  void aKeepAliveCarryingAcknowledgementsIsPongedOnlyOnceTheyAreApplied() {
    open(7);

    List<ServerEffect> held = machine.received(keepAlive(0, 5).build(), at(2));
    List<ServerEffect> behind = machine.received(keepAlive(0).build(), at(3));

    assertThat(last(held)).isInstanceOf(ServerEffect.Acknowledge.class);
    assertThat(behind).containsExactly(new ServerEffect.Heard(7)); // waits behind the held one
    List<ServerEffect> pongs = machine.acknowledged(null);
    assertThat(pongs).hasSize(2).allMatch(e -> sent(e).hasPong());
  }

  @Test
  void aKeepAliveWithAnIdIsAnsweredByItsOwnPongOnly() {
    open(7);
    machine.received(keepAlive(0, 5).build(), at(2));

    List<ServerEffect> effects = machine.received(keepAlive(11).build(), at(3));

    assertThat(sent(last(effects)).getPong().getId()).isEqualTo(11);
  }

  @Test
  void aRequestAfterTheSessionExpiredClosesWithSessionExpired() {
    open(7);
    node.sessions.remove(7L);
    machine.sessionEnded(7, false, at(2));

    List<ServerEffect> effects = machine.received(request(4).build(), at(3));

    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.SESSION_EXPIRED.name());
  }

  @Test
  void aRequestOnAConnectionWhoseSessionMovedStillGoesToTheSession() {
    open(7);
    machine.superseded();

    assertThat(machine.received(request(4).build(), at(3))).isEmpty(); // closed: not handled
  }

  // ------------------------------------------------------------------ the session's end

  @Test
  void anExpiredSessionClosesItsConnectionWithSessionExpired() {
    open(7);

    List<ServerEffect> effects = machine.sessionEnded(7, true, at(2));

    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.SESSION_EXPIRED.name());
  }

  @Test
  void aClosedSessionLeavesTheConnectionOpenUntilItIdles() {
    open(7);

    List<ServerEffect> effects = machine.sessionEnded(7, false, at(2));

    assertThat(effects).isEmpty();
    assertThat(machine.nextDeadline()).isEqualTo(at(2 + 60_000).nanos());
  }

  @Test
  void aSupersededConnectionClosesWithUnavailable() {
    open(7);

    List<ServerEffect> effects = machine.superseded();

    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.UNAVAILABLE.name());
    assertThat(machine.sessionId()).isZero();
  }

  @Test
  void notLeaderDetachesTheSessionAndSendsTheClientToTheLeader() {
    open(7);

    List<ServerEffect> effects = machine.notLeader("10.0.0.2:7500");

    assertThat(effects.get(0)).isEqualTo(new ServerEffect.Detach(7));
    ServerFrame last = ((ServerEffect.SendAndClose) effects.get(1)).frame();
    assertThat(last.getFatal().getFailure().getLeader()).isEqualTo("10.0.0.2:7500");
  }

  @Test
  void notLeaderWhileOpeningGivesTheQuotaBack() {
    machine.received(h(hello()), at(1));

    machine.notLeader("");

    assertThat(node.quotaTaken).containsEntry("127.0.0.1", 0);
  }

  @Test
  void aSessionOpenedAfterItsConnectionWentIsNotAttached() {
    machine.received(h(hello()), at(1));
    machine.disconnected();
    node.live(7, 1, SessionOwner.NONE);

    assertThat(machine.opened(7)).isEmpty();
  }

  @Test
  void aDisconnectedConnectionDetachesItsSession() {
    open(7);

    assertThat(machine.disconnected()).containsExactly(new ServerEffect.Detach(7));
  }

  @Test
  void nothingIsHandledAfterAFatal() {
    machine.received(request(1).build(), at(1)); // fatal: no session

    assertThat(machine.received(h(hello()), at(2))).isEmpty();
    assertThat(machine.nextDeadline()).isEqualTo(Long.MAX_VALUE);
  }

  // ------------------------------------------------------------------ quiet connections

  @Test
  void aConnectionThatOpensNoSessionIsClosedAtTheHelloTimeout() {
    assertThat(machine.nextDeadline()).isEqualTo(at(10_000).nanos());
    assertThat(machine.tick(at(9_999))).isEmpty();

    List<ServerEffect> effects = machine.tick(at(10_000));

    assertThat(fatalCode(effects)).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED.name());
    assertThat(fatalMessage(effects)).startsWith("helloTimeout (10s)");
  }

  @Test
  void aConnectionWithASessionHasNoQuietDeadline() {
    open(7);

    assertThat(machine.nextDeadline()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aConnectionThatLostItsSessionIsClosedAfterTheIdleTimeoutOfSilence() {
    open(7);
    machine.sessionEnded(7, false, at(2));
    node.sessions.remove(7L);
    machine.received(h(hello().setNoSession(true)), at(30_000)); // heard from: later

    List<ServerEffect> effects = machine.tick(at(90_000));

    assertThat(fatalMessage(effects)).startsWith("idleTimeout (1m)");
  }

  @Test
  void aConnectionThatWatchesIsNotClosedForQuiet() {
    machine.received(h(hello().setNoSession(true)), at(1));
    machine.received(watch(1, "x").build(), at(2));

    assertThat(machine.nextDeadline()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aMonotonicClockThatReadsNegativeTimesNothingOutEarly() {
    // System.nanoTime() has an arbitrary origin: its readings may be negative
    long origin = -Long.MAX_VALUE / 2;
    ServerSession m = new ServerSession(RULES, node, random(), PEER, new Moment(origin, EPOCH));
    List<ServerEffect> open = m.received(h(hello()), new Moment(origin + 1, EPOCH));
    node.live(7, 1, ((ServerEffect.OpenSession) last(open)).command().owner());
    m.opened(7);

    List<ServerEffect> later = m.received(keepAlive(0).build(), new Moment(origin + 2, EPOCH));

    assertThat(later).noneMatch(e -> e instanceof ServerEffect.SendAndClose);
    assertThat(m.tick(new Moment(origin + 3, EPOCH))).isEmpty();
    assertThat(m.nextDeadline()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aHelloTimeoutOnANegativeClockFallsDueAsOnAnyOther() {
    long origin = -Long.MAX_VALUE / 2;
    ServerSession m = new ServerSession(RULES, node, random(), PEER, new Moment(origin, EPOCH));

    assertThat(m.nextDeadline()).isEqualTo(origin + Duration.ofSeconds(10).toNanos());
    assertThat(m.tick(new Moment(origin + Duration.ofSeconds(10).toNanos(), EPOCH)))
        .anyMatch(e -> e instanceof ServerEffect.SendAndClose);
  }

  // ------------------------------------------------------------------ reads and backpressure

  @Test
  void aReadIsAskedOfTheNodeUnderItsId() {
    List<ServerEffect> effects = machine.received(read(5).build(), at(1));

    ServerEffect.Read read = (ServerEffect.Read) effects.get(0);
    assertThat(read.id()).isEqualTo(5);
  }

  @Test
  void aReadPastTheBoundInFlightIsParkedAndReadingStopsUntilOneIsAnswered() {
    for (int i = 1; i <= Backlog.MAX_READS_IN_FLIGHT; i++) {
      machine.received(read(i).build(), at(1));
    }

    List<ServerEffect> parked = machine.received(read(17).build(), at(2));
    List<ServerEffect> freed = machine.readAnswered(at(3));

    assertThat(parked).containsExactly(new ServerEffect.AutoRead(false));
    assertThat(((ServerEffect.Read) freed.get(0)).id()).isEqualTo(17);
    assertThat(freed.get(1)).isEqualTo(new ServerEffect.AutoRead(true));
  }

  @Test
  void whileTheClientDoesNotReadItsRepliesEveryFrameIsParkedInOrder() {
    open(7);
    assertThat(machine.writable(false, at(2))).containsExactly(new ServerEffect.AutoRead(false));

    assertThat(machine.received(request(3).build(), at(3))).isEmpty();
    assertThat(machine.received(request(4).build(), at(3))).isEmpty();
    List<ServerEffect> drained = machine.writable(true, at(4));

    assertThat(drained)
        .filteredOn(e -> e instanceof ServerEffect.SubmitRequest)
        .extracting(e -> ((ServerEffect.SubmitRequest) e).command().requestId())
        .containsExactly(3L, 4L);
    assertThat(last(drained)).isEqualTo(new ServerEffect.AutoRead(true));
  }

  // ------------------------------------------------------------------ watches

  @Test
  void aWatchStartsAtABarrierAndCountsAsARead() {
    List<ServerEffect> effects = machine.received(watch(1, "x").build(), at(1));

    WatchRequest w = ((ServerEffect.StartWatch) effects.get(0)).watch();
    assertThat(w.id()).isEqualTo(1);
    assertThat(w.limit()).isEqualTo(ServerSession.DEFAULT_WATCH_LIMIT);
    assertThat(machine.watching(w)).isTrue();
  }

  @Test
  void aWatchWithIdZeroIsRefusedNamingTheId() {
    List<ServerEffect> effects = machine.received(watch(0, "x").build(), at(1));

    assertThat(sent(effects.get(0)).getWatchEvent().getFailure().getMessage()).startsWith("id: ");
  }

  @Test
  void aWatchWhoseIdRunsAlreadyIsRefused() {
    machine.received(watch(1, "x").build(), at(1));

    List<ServerEffect> effects = machine.received(watch(1, "y").build(), at(1));

    assertThat(sent(effects.get(0)).getWatchEvent().getFailure().getMessage())
        .isEqualTo("id: watch 1 is already running on this connection");
  }

  @Test
  void theWatchPastTheMostAConnectionMayRunIsRefusedWithResourceExhausted() {
    for (int i = 1; i <= ServerSession.MAX_WATCHES; i++) {
      machine.received(watch(i, "x").build(), at(1));
      machine.readAnswered(at(1));
    }

    List<ServerEffect> effects = machine.received(watch(65, "x").build(), at(2));

    assertThat(sent(effects.get(0)).getWatchEvent().getFailure().getCode().name())
        .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED.name());
  }

  @Test
  void aWatchUnwatchedAndWatchedAgainIsAnotherStart() {
    WatchRequest first =
        ((ServerEffect.StartWatch) machine.received(watch(1, "x").build(), at(1)).get(0)).watch();

    List<ServerEffect> stopped =
        machine.received(
            ClientFrame.newBuilder().setUnwatch(Unwatch.newBuilder().setId(1)).build(), at(2));
    WatchRequest second =
        ((ServerEffect.StartWatch) machine.received(watch(1, "x").build(), at(3)).get(0)).watch();

    assertThat(stopped).containsExactly(new ServerEffect.StopWatch(1));
    assertThat(machine.watching(first)).isFalse();
    assertThat(machine.watching(second)).isTrue();
  }

  // ------------------------------------------------------------------ helpers

  static Moment at(long millis) {
    return new Moment(Duration.ofMillis(millis).toNanos(), EPOCH.plusMillis(millis));
  }

  static SecureRandom random() {
    try {
      SecureRandom r = SecureRandom.getInstance("SHA1PRNG");
      r.setSeed(42);
      return r;
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private void open(long id) {
    open(id, hello());
  }

  private void open(long id, Hello.Builder hello) {
    List<ServerEffect> effects = machine.received(h(hello), at(1));
    ServerEffect.OpenSession open = (ServerEffect.OpenSession) last(effects);
    node.live(id, open.command().ttl(), open.command().owner());
    machine.opened(id);
  }

  static ClientFrame h(Hello.Builder hello) {
    return ClientFrame.newBuilder().setHello(hello).build();
  }

  static Hello.Builder hello() {
    return Hello.newBuilder().setProtocolVersion(1).setClientName("test");
  }

  static ClientFrame.Builder request(long id, long... acks) {
    Request.Builder r =
        Request.newBuilder()
            .setId(id)
            .setIncrement(
                Increment.newBuilder().setName(ByteString.copyFromUtf8("b/x")).setAmount(1));
    for (long ack : acks) {
      r.addAcks(ack);
    }
    return ClientFrame.newBuilder().setRequest(r);
  }

  static ClientFrame.Builder keepAlive(long id, long... acks) {
    KeepAlive.Builder k = KeepAlive.newBuilder().setId(id);
    for (long ack : acks) {
      k.addAcks(ack);
    }
    return ClientFrame.newBuilder().setKeepAlive(k);
  }

  static ClientFrame.Builder read(long id) {
    return ClientFrame.newBuilder()
        .setRead(
            Read.newBuilder()
                .setId(id)
                .setGet(Get.newBuilder().setName(ByteString.copyFromUtf8("x"))));
  }

  static ClientFrame.Builder watch(long id, String name) {
    return ClientFrame.newBuilder()
        .setWatch(Watch.newBuilder().setId(id).setName(ByteString.copyFromUtf8(name)));
  }

  static ServerFrame sent(ServerEffect effect) {
    assertThat(effect).isInstanceOf(ServerEffect.Send.class);
    return ((ServerEffect.Send) effect).frame();
  }

  static ServerEffect last(List<ServerEffect> effects) {
    assertThat(effects).isNotEmpty();
    return effects.get(effects.size() - 1);
  }

  static String fatalCode(List<ServerEffect> effects) {
    return closing(effects).getFatal().getFailure().getCode().name();
  }

  static String fatalMessage(List<ServerEffect> effects) {
    return closing(effects).getFatal().getFailure().getMessage();
  }

  static ServerFrame closing(List<ServerEffect> effects) {
    ServerEffect last = last(effects);
    assertThat(last).isInstanceOf(ServerEffect.SendAndClose.class);
    return ((ServerEffect.SendAndClose) last).frame();
  }

  private final List<AuthFile.TokenEntry> tokens = new ArrayList<>();

  /** Enforces rules (alice may use a/, bob b/) with alice's token; returns it. */
  private String enforce(@Nullable Instant aliceExpires) throws Exception {
    String alice = issue("alice", aliceExpires);
    node.access = load(tokens);
    return alice;
  }

  private String issue(String principal, @Nullable Instant expires) throws Exception {
    Tokens.Issued issued = Tokens.issue(principal, expires, new SecureRandom());
    tokens.add(issued.entry());
    if (!node.access.enforced()) {
      return issued.token();
    }
    node.access = load(tokens);
    return issued.token();
  }

  /** The rules of an auth file with {@code entries} (read from a file, as a server reads it). */
  private static Access load(List<AuthFile.TokenEntry> entries) throws Exception {
    Path file = Files.createTempFile("semafor-auth", ".json");
    try {
      List<AuthFile.Rule> rules =
          List.of(
              new AuthFile.Rule("alice", "a/", List.of("read", "acquire", "release")),
              new AuthFile.Rule("bob", "b/", List.of("read", "acquire", "release")));
      Files.writeString(file, new AuthFile(entries, rules).toJson());
      return AuthFile.load(file);
    } finally {
      Files.delete(file);
    }
  }
}
