package io.semafor.server.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.SessionOwner;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Unwatch;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of a connection's session machine once it has a session (or reads without one), one per
 * test, on a fake clock and a fake node: requests and keep-alives, the session's end, quiet
 * connections, reads and backpressure, watches.
 */
class ServerSessionTest extends ServerSessionRules {
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
}
