package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.AcquireLease;
import io.semafor.protocol.v1.AwaitZero;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Decrement;
import io.semafor.protocol.v1.Delete;
import io.semafor.protocol.v1.EndSession;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Inspect;
import io.semafor.protocol.v1.ListNames;
import io.semafor.protocol.v1.ListSessions;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Release;
import io.semafor.protocol.v1.ReleaseLease;
import io.semafor.protocol.v1.RenewLease;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.Semop;
import io.semafor.protocol.v1.SemopOp;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.SetValue;
import io.semafor.protocol.v1.SnapshotRequest;
import io.semafor.protocol.v1.Welcome;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import io.semafor.server.security.Tokens;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication, permissions and session ownership at the wire (docs/security.md): each refused
 * attempt gets its code, and changes nothing.
 */
class SecurityTest {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Path authFile;
  private SemaforServer server;

  /** alice: read/acquire/release under a/; bob: everything but cluster under b/; ops: all. */
  private String alice;

  private String bob;
  private String ops;
  private String expired;
  private AuthFile.TokenEntry aliceEntry;
  private final List<AuthFile.TokenEntry> entries = new ArrayList<>();

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    alice = issue("alice", null);
    aliceEntry = entries.get(0);
    bob = issue("bob", null);
    ops = issue("ops", null);
    expired = issue("carol", Instant.now().minusSeconds(60));
    authFile = dir.resolve("auth.json");
    writeAuthFile(entries);
    server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .adminPort(0)
                .minSessionTtl(Duration.ofMillis(50))
                .security(Security.of(authFile))
                .build());
    try (WireClient admin = connect(ops)) {
      for (String n : List.of("a/x", "b/y")) {
        assertThat(admin.call(create(n, 5)).hasFailure()).isFalse();
      }
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String issue(String principal, @Nullable Instant expires) {
    Tokens.Issued issued = Tokens.issue(principal, expires, RANDOM);
    entries.add(issued.entry());
    return issued.token();
  }

  private void writeAuthFile(List<AuthFile.TokenEntry> tokens) throws IOException {
    List<AuthFile.Rule> rules =
        List.of(
            new AuthFile.Rule("alice", "a/", List.of("read", "acquire", "release")),
            new AuthFile.Rule("bob", "b/", List.of("read", "acquire", "release", "admin")),
            new AuthFile.Rule("ops", "", List.of("read", "admin", "cluster")));
    Files.writeString(authFile, new AuthFile(tokens, rules).toJson());
  }

  private WireClient connect(String token) throws IOException {
    WireClient c = new WireClient(server.address());
    Welcome w = c.hello(Hello.newBuilder().setToken(token));
    assertThat(w.hasFailure()).as("welcome %s", w).isFalse();
    return c;
  }

  private static Request.Builder create(String n, long initial) {
    return Request.newBuilder().setCreate(Create.newBuilder().setName(name(n)).setInitial(initial));
  }

  private long value(String n) throws IOException {
    try (WireClient c = connect(ops)) {
      return c.status(n).getValue();
    }
  }

  private static void assertDenied(Response r, String permission, String n) {
    assertThat(r.getFailure().getCode()).isEqualTo(ErrorCode.PERMISSION_DENIED);
    assertThat(r.getFailure().getMessage()).contains("'" + permission + "'").contains(n);
  }

  // ---------------------------------------------------------------- authentication

  private void assertRefusedAndClosed(Hello.Builder hello, String reason) throws IOException {
    int sessions = server.sessionCount();
    try (WireClient c = new WireClient(server.address())) {
      Welcome w = c.hello(hello);
      assertThat(w.getFailure().getCode()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      assertThat(w.getFailure().getMessage()).contains(reason);
      assertThat(c.closedByServer()).isTrue();
    }
    assertThat(server.sessionCount()).as("no session was opened").isEqualTo(sessions);
  }

  @Test
  void aHelloWithoutCredentialsIsUnauthenticatedAndClosed() throws IOException {
    assertRefusedAndClosed(Hello.newBuilder(), "credentials: none given");
  }

  @Test
  void aWrongTokenIsUnauthenticated() throws IOException {
    String wrong = alice.substring(0, alice.length() - 4) + "AAAA";
    assertRefusedAndClosed(Hello.newBuilder().setToken(wrong), "token: not valid");
  }

  @Test
  void aTokenOfAnotherShapeIsUnauthenticated() throws IOException {
    assertRefusedAndClosed(Hello.newBuilder().setToken("letmein"), "token: not valid");
  }

  @Test
  void anExpiredTokenIsUnauthenticated() throws IOException {
    assertRefusedAndClosed(Hello.newBuilder().setToken(expired), "token: expired");
  }

  @Test
  void aRevokedTokenIsRefusedAfterAReloadAndItsConnectionClosed() throws Exception {
    try (WireClient connected = connect(alice)) {
      List<AuthFile.TokenEntry> withoutAlice = new ArrayList<>(entries);
      withoutAlice.remove(aliceEntry);
      writeAuthFile(withoutAlice);
      assertThat(server.reloadAuth()).contains("1 connections closed");
      ServerFrame last = connected.receive();
      assertThat(last.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      assertThat(connected.closedByServer()).isTrue();
    }
    assertRefusedAndClosed(Hello.newBuilder().setToken(alice), "token: not valid");
  }

  @Test
  void aTokenThatExpiresWhileItsConnectionIsOpenStopsWorkingThere() throws Exception {
    Instant expires = Instant.now().plusSeconds(2);
    String erin = issue("erin", expires);
    writeAuthFile(entries);
    server.reloadAuth();
    try (WireClient c = connect(erin)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(expires));
      c.request(Request.newBuilder().setCreate(Create.newBuilder().setName(name("a/late"))));
      ServerFrame answer = c.receive();
      assertThat(answer.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      assertThat(answer.getFatal().getFailure().getMessage()).startsWith("token: expired at");
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @Test
  void aSecondHelloCannotSwitchTheConnectionsPrincipal() throws IOException {
    try (WireClient c = new WireClient(server.address())) {
      Welcome first = c.hello(Hello.newBuilder().setToken(alice).setSessionId(12345));
      assertThat(first.getFailure().getCode()).isEqualTo(ErrorCode.SESSION_EXPIRED);
      c.send(
          ClientFrame.newBuilder()
              .setHello(
                  Hello.newBuilder()
                      .setProtocolVersion(io.semafor.protocol.Frames.PROTOCOL_VERSION)
                      .setToken(bob))
              .build());
      ServerFrame answer = c.receive();
      assertThat(answer.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(answer.getFatal().getFailure().getMessage())
          .isEqualTo(
              "hello: this connection was taken for alice; a connection keeps its principal");
    }
  }

  @Test
  void aReadBeforeHelloIsUnauthenticated() throws IOException {
    try (WireClient c = new WireClient(server.address())) {
      c.send(
          ClientFrame.newBuilder()
              .setRead(Read.newBuilder().setId(1).setGet(Get.newBuilder().setName(name("a/x"))))
              .build());
      assertThat(c.receive().getFatal().getFailure().getCode())
          .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }
  }

  @Test
  void aSnapshotBeforeHelloIsUnauthenticated() throws IOException {
    try (WireClient c = new WireClient(server.address())) {
      c.send(ClientFrame.newBuilder().setSnapshot(SnapshotRequest.newBuilder().setId(1)).build());
      assertThat(c.receive().getFatal().getFailure().getCode())
          .isEqualTo(ErrorCode.UNAUTHENTICATED);
    }
  }

  @Test
  void aSnapshotWithoutClusterIsDenied() throws IOException {
    try (WireClient c = connect(bob)) {
      c.send(ClientFrame.newBuilder().setSnapshot(SnapshotRequest.newBuilder().setId(1)).build());
      ServerFrame answer = c.receive();
      assertThat(answer.getSnapshotChunk().getFailure().getCode())
          .isEqualTo(ErrorCode.PERMISSION_DENIED);
      assertThat(answer.getSnapshotChunk().getData().isEmpty()).isTrue();
    }
  }

  // ---------------------------------------------------------------- permissions

  @Test
  void createWithoutAdminIsDeniedAndCreatesNothing() throws IOException {
    try (WireClient c = connect(alice)) {
      assertDenied(c.call(create("a/new", 1)), "admin", "a/new");
    }
    try (WireClient c = connect(ops)) {
      c.send(
          ClientFrame.newBuilder()
              .setRead(Read.newBuilder().setId(1).setGet(Get.newBuilder().setName(name("a/new"))))
              .build());
      assertThat(c.receive().getReadResponse().getFailure().getCode())
          .isEqualTo(ErrorCode.NOT_FOUND);
    }
  }

  @Test
  void deleteWithoutAdminIsDeniedAndDeletesNothing() throws IOException {
    try (WireClient c = connect(alice)) {
      assertDenied(
          c.call(Request.newBuilder().setDelete(Delete.newBuilder().setName(name("a/x")))),
          "admin",
          "a/x");
    }
    assertThat(value("a/x")).isEqualTo(5);
  }

  @Test
  void setWithoutAdminIsDeniedAndTheValueStays() throws IOException {
    try (WireClient c = connect(alice)) {
      assertDenied(
          c.call(
              Request.newBuilder()
                  .setSetValue(SetValue.newBuilder().setName(name("a/x")).setValue(99))),
          "admin",
          "a/x");
    }
    assertThat(value("a/x")).isEqualTo(5);
  }

  @Test
  void incrementOutsideThePrefixIsDenied() throws IOException {
    try (WireClient c = connect(alice)) {
      assertDenied(
          c.call(
              Request.newBuilder()
                  .setIncrement(Increment.newBuilder().setName(name("b/y")).setAmount(1))),
          "release",
          "b/y");
    }
    assertThat(value("b/y")).isEqualTo(5);
  }

  @Test
  void acquireWithoutAcquireIsDenied() throws IOException {
    try (WireClient c = connect(ops)) {
      assertDenied(
          c.call(
              Request.newBuilder()
                  .setAcquire(Acquire.newBuilder().setName(name("a/x")).setAmount(1))),
          "acquire",
          "a/x");
    }
    assertThat(value("a/x")).isEqualTo(5);
  }

  @Test
  void decrementWithoutAcquireIsDenied() throws IOException {
    try (WireClient c = connect(ops)) {
      assertDenied(
          c.call(
              Request.newBuilder()
                  .setDecrement(Decrement.newBuilder().setName(name("a/x")).setAmount(1))),
          "acquire",
          "a/x");
    }
    assertThat(value("a/x")).isEqualTo(5);
  }

  @Test
  void aLeaseWithoutAcquireIsDenied() throws IOException {
    try (WireClient c = connect(ops)) {
      assertDenied(
          c.call(
              Request.newBuilder()
                  .setAcquireLease(
                      AcquireLease.newBuilder()
                          .setName(name("a/x"))
                          .setAmount(1)
                          .setLeaseTtlNs(Duration.ofMinutes(1).toNanos()))),
          "acquire",
          "a/x");
    }
    assertThat(value("a/x")).isEqualTo(5);
  }

  @Test
  void releaseWithoutReleaseIsDenied() throws IOException {
    try (WireClient c = connect(ops)) {
      assertDenied(
          c.call(
              Request.newBuilder()
                  .setRelease(Release.newBuilder().setName(name("a/x")).setAmount(1))),
          "release",
          "a/x");
    }
  }

  @Test
  void waitingForZeroWithoutReadIsDenied() throws IOException {
    try (WireClient c = connect(alice)) {
      assertDenied(
          c.call(Request.newBuilder().setAwaitZero(AwaitZero.newBuilder().setName(name("b/y")))),
          "read",
          "b/y");
    }
  }

  @Test
  void getAndInspectWithoutReadAreDenied() throws IOException {
    try (WireClient c = connect(alice)) {
      for (Read.Builder read :
          List.of(
              Read.newBuilder().setId(1).setGet(Get.newBuilder().setName(name("b/y"))),
              Read.newBuilder().setId(2).setInspect(Inspect.newBuilder().setName(name("b/y"))))) {
        c.send(ClientFrame.newBuilder().setRead(read).build());
        ReadResponse r = c.receive().getReadResponse();
        assertThat(r.getFailure().getCode()).isEqualTo(ErrorCode.PERMISSION_DENIED);
        assertThat(r.getFailure().getMessage()).contains("'read'").contains("b/y");
      }
    }
  }

  @Test
  void aSemopNeedsThePermissionOnEveryNameItTouchesAndChangesNothingWithout() throws IOException {
    try (WireClient c = connect(alice)) {
      Response r =
          c.call(
              Request.newBuilder()
                  .setSemop(
                      Semop.newBuilder()
                          .addOps(SemopOp.newBuilder().setName(name("a/x")).setDelta(-1))
                          .addOps(SemopOp.newBuilder().setName(name("b/y")).setDelta(1))));
      assertDenied(r, "release", "b/y");
    }
    assertThat(value("a/x")).isEqualTo(5);
    assertThat(value("b/y")).isEqualTo(5);
  }

  @Test
  void aListingShowsOnlyTheNamesThePrincipalMayRead() throws IOException {
    try (WireClient c = connect(alice)) {
      c.send(
          ClientFrame.newBuilder()
              .setRead(
                  Read.newBuilder()
                      .setId(1)
                      .setListNames(ListNames.newBuilder().setLimit(100).setWithStatus(true)))
              .build());
      ReadResponse r = c.receive().getReadResponse();
      assertThat(r.getNames().getNamesList()).containsExactly(name("a/x"));
      assertThat(r.getNames().getStatusesCount()).isEqualTo(1);
    }
  }

  @Test
  void aListingReadsOnPastPagesHoldingNothingThePrincipalMayRead() throws IOException {
    try (WireClient admin = connect(ops)) {
      for (String n : List.of("0/1", "0/2", "0/3", "0/4")) {
        assertThat(admin.call(create(n, 1)).hasFailure()).isFalse();
      }
    }
    try (WireClient c = connect(alice)) {
      c.send(
          ClientFrame.newBuilder()
              .setRead(Read.newBuilder().setId(1).setListNames(ListNames.newBuilder().setLimit(2)))
              .build());
      ReadResponse first = c.receive().getReadResponse();
      // the two pages of 0/… held nothing alice may read: the answer is the first that does
      assertThat(first.getNames().getNamesList()).containsExactly(name("a/x"));
      // b/y, the last name, was scanned in the same page and left out: nothing follows
      assertThat(first.getNames().getMore()).isFalse();
    }
  }

  // ---------------------------------------------------------------- sessions and leases

  @Test
  void anotherPrincipalCannotResumeASessionEvenWithItsSecret() throws IOException {
    WireClient owner = connect(alice);
    long session = owner.sessionId;
    try (WireClient thief = new WireClient(server.address())) {
      Welcome w =
          thief.hello(
              Hello.newBuilder()
                  .setToken(bob)
                  .setSessionId(session)
                  .setSessionSecret(owner.sessionSecret));
      assertThat(w.getFailure().getCode()).isEqualTo(ErrorCode.SESSION_EXPIRED);
    } finally {
      owner.close();
    }
  }

  @Test
  void theOwnerCannotResumeWithoutTheSecretButCanWithIt() throws IOException {
    WireClient first = connect(alice);
    long session = first.sessionId;
    first.close();
    try (WireClient guess = new WireClient(server.address())) {
      Welcome w = guess.hello(Hello.newBuilder().setToken(alice).setSessionId(session));
      assertThat(w.getFailure().getCode()).isEqualTo(ErrorCode.SESSION_EXPIRED);
    }
    try (WireClient again = new WireClient(server.address())) {
      Welcome w =
          again.hello(
              Hello.newBuilder()
                  .setToken(alice)
                  .setSessionId(session)
                  .setSessionSecret(first.sessionSecret));
      assertThat(w.getResumed()).isTrue();
    }
  }

  @Test
  void sessionIdsAreNotSequential() throws IOException {
    try (WireClient one = connect(alice);
        WireClient two = connect(alice)) {
      assertThat(Math.abs(two.sessionId - one.sessionId)).isGreaterThan(1L << 20);
    }
  }

  private long leaseOn(WireClient c, String n) throws IOException {
    Response r =
        c.call(
            Request.newBuilder()
                .setAcquireLease(
                    AcquireLease.newBuilder()
                        .setName(name(n))
                        .setAmount(1)
                        .setLeaseTtlNs(Duration.ofMinutes(5).toNanos())));
    return r.getLeaseGranted().getPermitId();
  }

  @Test
  void aLeaseCannotBeReleasedThroughASemaphoreItIsNotOn() throws IOException {
    long permit;
    try (WireClient c = connect(alice)) {
      permit = leaseOn(c, "a/x");
      assertThat(permit).isNotZero();
    }
    assertThat(value("a/x")).isEqualTo(4);
    try (WireClient c = connect(bob)) {
      Response viaOwnName =
          c.call(
              Request.newBuilder()
                  .setReleaseLease(
                      ReleaseLease.newBuilder().setPermitId(permit).setName(name("b/y"))));
      assertThat(viaOwnName.getLeaseReleased().getReleased()).isFalse();
      Response viaItsName =
          c.call(
              Request.newBuilder()
                  .setReleaseLease(
                      ReleaseLease.newBuilder().setPermitId(permit).setName(name("a/x"))));
      assertDenied(viaItsName, "release", "a/x");
      Response renewed =
          c.call(
              Request.newBuilder()
                  .setRenewLease(
                      RenewLease.newBuilder()
                          .setPermitId(permit)
                          .setTtlNs(1)
                          .setName(name("a/x"))));
      assertDenied(renewed, "acquire", "a/x");
    }
    assertThat(value("a/x")).as("the lease still holds its permit").isEqualTo(4);
  }

  @Test
  void aLeaseReleasedByIdAloneIsRefusedWhenPermissionsApply() throws IOException {
    try (WireClient c = connect(alice)) {
      long permit = leaseOn(c, "a/x");
      Response r =
          c.call(
              Request.newBuilder().setReleaseLease(ReleaseLease.newBuilder().setPermitId(permit)));
      assertThat(r.getFailure().getCode()).isEqualTo(ErrorCode.PERMISSION_DENIED);
      assertThat(r.getFailure().getMessage()).startsWith("name:");
    }
  }

  @Test
  void endingAnotherPrincipalsSessionNeedsCluster() throws IOException {
    int before = server.sessionCount();
    try (WireClient victim = connect(alice);
        WireClient c = connect(bob)) {
      Response r =
          c.call(
              Request.newBuilder()
                  .setEndSession(EndSession.newBuilder().setSessionId(victim.sessionId)));
      assertThat(r.getFailure().getCode()).isEqualTo(ErrorCode.PERMISSION_DENIED);
      assertThat(r.getFailure().getMessage()).contains("'cluster'");
      assertThat(server.sessionCount()).isEqualTo(before + 2);
    }
  }

  @Test
  void aSessionListShowsOnlyThePrincipalsOwnSessions() throws IOException {
    try (WireClient other = connect(bob);
        WireClient c = connect(alice)) {
      c.send(
          ClientFrame.newBuilder()
              .setRead(
                  Read.newBuilder()
                      .setId(1)
                      .setListSessions(ListSessions.newBuilder().setLimit(100)))
              .build());
      ReadResponse r = c.receive().getReadResponse();
      assertThat(r.getSessions().getSessionsList())
          .extracting(s -> s.getSessionId())
          .contains(c.sessionId)
          .doesNotContain(other.sessionId);
      assertThat(r.getSessions().getSessionsList())
          .extracting(s -> s.getPrincipal())
          .containsOnly("alice");
    }
  }

  @Test
  void aPrincipalsSessionQuotaIsItsOwnNotItsAddresss() throws Exception {
    SemaforServer limited =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .clientLimits(ClientLimits.DEFAULT.withMaxSessionsPerClient(2))
                .security(Security.of(authFile))
                .build());
    List<WireClient> open = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        WireClient c = new WireClient(limited.address());
        open.add(c);
        assertThat(c.hello(Hello.newBuilder().setToken(alice)).hasFailure()).isFalse();
      }
      WireClient third = new WireClient(limited.address());
      open.add(third);
      Welcome refused = third.hello(Hello.newBuilder().setToken(alice));
      assertThat(refused.getFailure().getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(refused.getFailure().getMessage()).contains("alice");
      WireClient other = new WireClient(limited.address());
      open.add(other);
      assertThat(other.hello(Hello.newBuilder().setToken(bob)).hasFailure())
          .as("another principal from the same address")
          .isFalse();
    } finally {
      for (WireClient c : open) {
        c.close();
      }
      limited.close();
    }
  }

  @Test
  void aPrincipalsConnectionCapHoldsWhereverItConnectsFrom() throws Exception {
    SemaforServer limited =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .clientLimits(ClientLimits.DEFAULT.withMaxConnectionsPerClient(2))
                .security(Security.of(authFile))
                .build());
    InetAddress other = InetAddress.getByName("127.0.0.2");
    List<WireClient> open = new ArrayList<>();
    try {
      for (InetAddress from : java.util.Arrays.asList(null, other)) {
        WireClient c = new WireClient(limited.address(), from);
        open.add(c);
        assertThat(c.hello(Hello.newBuilder().setToken(alice)).hasFailure()).isFalse();
      }
      WireClient third = new WireClient(limited.address(), other);
      open.add(third);
      Welcome refused = third.hello(Hello.newBuilder().setToken(alice));
      assertThat(refused.getFailure().getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(refused.getFailure().getMessage())
          .isEqualTo("maxConnectionsPerClient (2) reached for principal alice");
      assertThat(third.closedByServer()).isTrue();
      WireClient bob = new WireClient(limited.address(), null);
      open.add(bob);
      assertThat(bob.hello(Hello.newBuilder().setToken(SecurityTest.this.bob)).hasFailure())
          .as("another principal")
          .isFalse();
      open.get(0).close();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                try (WireClient again = new WireClient(limited.address(), other)) {
                  assertThat(again.hello(Hello.newBuilder().setToken(alice)).hasFailure())
                      .as("a closed connection gives its place back")
                      .isFalse();
                }
              });
    } finally {
      for (WireClient c : open) {
        c.close();
      }
      limited.close();
    }
  }

  // ---------------------------------------------------------------- the admin port

  private HttpResponse<String> admin(String method, String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:"
                        + Objects.requireNonNull(server.adminAddress()).getPort()
                        + path))
            .method(method, HttpRequest.BodyPublishers.ofString("4=127.0.0.1:1:2"))
            .timeout(Duration.ofSeconds(10));
    if (!token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theAdminEndpointsNeedCredentialsExceptHealth() throws Exception {
    assertThat(admin("GET", "/health", "").statusCode()).isEqualTo(200);
    for (String path : List.of("/metrics", "/cluster", "/sessions")) {
      HttpResponse<String> r = admin("GET", path, "");
      assertThat(r.statusCode()).as(path).isEqualTo(401);
      assertThat(r.body()).contains("UNAUTHENTICATED");
    }
  }

  @Test
  void metricsAreForbiddenToAPrincipalThatMayNotReadEveryName() throws Exception {
    HttpResponse<String> r = admin("GET", "/metrics", alice);
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("PERMISSION_DENIED").contains("'read' on every name");
  }

  @Test
  void metricsShowEveryNameToAPrincipalThatMayReadEveryName() throws Exception {
    HttpResponse<String> r = admin("GET", "/metrics", ops);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("name=\"a/x\"").contains("name=\"b/y\"");
  }

  @Test
  void aMembershipChangeWithoutClusterIsForbidden() throws Exception {
    HttpResponse<String> r = admin("POST", "/cluster/members", bob);
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("PERMISSION_DENIED").contains("cluster");
  }

  @Test
  void aReloadWithClusterPutsAnEditedFileInForce() throws Exception {
    assertThat(admin("POST", "/auth/reload", alice).statusCode()).isEqualTo(403);
    String dave = issue("dave", null);
    writeAuthFile(entries);
    HttpResponse<String> r = admin("POST", "/auth/reload", ops);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("5 tokens");
    connect(dave).close();
  }

  @Test
  void aReloadOfABrokenFileKeepsTheRulesInForce() throws Exception {
    Files.writeString(
        authFile, "{\"rules\": [{\"principal\": \"x\", \"permissions\": [\"fly\"]}]}");
    HttpResponse<String> r = admin("POST", "/auth/reload", ops);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("unknown permission 'fly'");
    connect(alice).close();
  }

  @Test
  void theAuditLogRecordsAdminActionsAndRefusals() throws Exception {
    try (AuditCapture audit = AuditCapture.start()) {
      try (WireClient c = connect(ops)) {
        c.call(create("a/audited", 1));
      }
      try (WireClient c = new WireClient(server.address())) {
        c.hello(Hello.newBuilder().setToken("letmein"));
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(audit.lines())
                      .anyMatch(
                          l ->
                              l.contains("create 'a/audited'")
                                  && l.contains("principal=ops")
                                  && l.contains("outcome=ok"))
                      .anyMatch(l -> l.contains("action=hello") && l.contains("UNAUTHENTICATED")));
      assertThat(String.join("\n", audit.lines())).doesNotContain("letmein").doesNotContain(ops);
    }
  }

  @Test
  void aServerWithoutAnAuthFileStaysOpenToAnonymousClients() throws Exception {
    SemaforServer open = SemaforServer.start(ServerConfig.builder().port(0).build());
    try (WireClient c = new WireClient(open.address())) {
      Welcome w = c.hello(0, 0);
      assertThat(w.hasFailure()).isFalse();
      assertThat(w.getPrincipal()).isEmpty();
      assertThat(c.call(create("anything", 1)).hasFailure()).isFalse();
    } finally {
      open.close();
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static io.semafor.protocol.v1.WatchEvent watchEvent(WireClient c) throws IOException {
    io.semafor.protocol.v1.ServerFrame f = c.receive();
    assertThat(f.hasWatchEvent()).as("a watch event, not %s", f).isTrue();
    return f.getWatchEvent();
  }

  private static io.semafor.protocol.v1.ClientFrame prefixWatch(String prefix) {
    return io.semafor.protocol.v1.ClientFrame.newBuilder()
        .setWatch(
            io.semafor.protocol.v1.Watch.newBuilder()
                .setId(1)
                .setName(name(prefix))
                .setPrefix(true))
        .build();
  }

  @Test
  void aPrefixWatchBeyondThePrincipalsReadGrantIsRefused() throws Exception {
    try (WireClient c = connect(alice)) { // alice reads a/ only
      c.send(prefixWatch(""));

      io.semafor.protocol.v1.WatchEvent e = watchEvent(c);
      assertThat(e.getKind()).isEqualTo(io.semafor.protocol.v1.WatchEvent.Kind.FAILED);
      assertThat(e.getFailure().getCode())
          .isEqualTo(io.semafor.protocol.v1.ErrorCode.PERMISSION_DENIED);
    }
  }

  @Test
  void aPrefixWatchWithinTheReadGrantIsToldOnlyItsStates() throws Exception {
    try (WireClient c = connect(alice)) {
      c.send(prefixWatch("a/"));

      io.semafor.protocol.v1.WatchEvent e = watchEvent(c);
      assertThat(e.getName().toStringUtf8()).isEqualTo("a/x");
      assertThat(watchEvent(c).getKind()).isEqualTo(io.semafor.protocol.v1.WatchEvent.Kind.SYNCED);
    }
  }

  @Test
  void aConnectionAuthenticatedWithoutASessionWatchesAndOpensNoSession() throws Exception {
    WireClient c = new WireClient(server.address());
    try (c) {
      Welcome w = c.hello(Hello.newBuilder().setToken(alice).setNoSession(true));
      assertThat(w.hasFailure()).isFalse();
      assertThat(w.getSessionId()).isZero();
      assertThat(w.getPrincipal()).isEqualTo("alice");
      c.send(prefixWatch("a/"));
      assertThat(watchEvent(c).getName().toStringUtf8()).isEqualTo("a/x");
    }
  }
}
