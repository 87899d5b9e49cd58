package io.semafor.server.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Secret;
import io.semafor.core.SessionOwner;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of a connection's session machine up to its {@code Welcome}, one per test, on a fake
 * clock and a fake node: opening and resuming a session, and the credentials it is opened with.
 */
class ServerSessionHelloTest extends ServerSessionRules {
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
}
