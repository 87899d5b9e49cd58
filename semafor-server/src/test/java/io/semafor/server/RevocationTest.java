package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.AcquireLease;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.ReleaseLease;
import io.semafor.protocol.v1.RenewLease;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.WatchEvent;
import io.semafor.protocol.v1.Welcome;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import io.semafor.server.security.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may touch a lease, and revocation that reaches what is already open (decision 0047,
 * docs/security.md#revocation): each case as issue 31 found it, against a real server on the wire.
 * alice and carol may read, acquire and release under {@code jobs/}; bob may read and acquire
 * there; ops may do everything.
 */
class RevocationTest {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String P = "jobs/printers";

  private Path authFile;
  private SemaforServer server;
  private final List<AuthFile.TokenEntry> tokens = new ArrayList<>();
  private final List<AuthFile.Rule> rules = new ArrayList<>();
  private String alice;
  private String bob;
  private String carol;
  private String ops;

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    alice = issue("alice", null);
    bob = issue("bob", null);
    carol = issue("carol", null);
    ops = issue("ops", null);
    rules.add(new AuthFile.Rule("alice", "jobs/", List.of("read", "acquire", "release")));
    rules.add(new AuthFile.Rule("bob", "jobs/", List.of("read", "acquire")));
    rules.add(new AuthFile.Rule("carol", "jobs/", List.of("read", "acquire", "release")));
    rules.add(
        new AuthFile.Rule("ops", "", List.of("read", "acquire", "release", "admin", "cluster")));
    authFile = dir.resolve("auth.json");
    writeAuthFile();
    server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .adminPort(0)
                .minSessionTtl(Duration.ofMillis(50))
                .security(Security.of(authFile))
                .build());
    try (WireClient c = connect(ops)) {
      assertThat(
              c.call(Request.newBuilder().setCreate(Create.newBuilder().setName(name(P))))
                  .hasFailure())
          .isFalse();
    }
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String issue(String principal, @Nullable Instant expires) {
    Tokens.Issued issued = Tokens.issue(principal, expires, RANDOM);
    tokens.add(issued.entry());
    return issued.token();
  }

  private void writeAuthFile() throws IOException {
    Files.writeString(authFile, new AuthFile(tokens, rules).toJson());
  }

  /** Rewrites {@code principal}'s rule under {@code jobs/} and reloads; returns what it said. */
  private String reloadWith(String principal, List<String> permissions) throws Exception {
    rules.removeIf(r -> r.principal().equals(principal));
    if (!permissions.isEmpty()) {
      rules.add(new AuthFile.Rule(principal, "jobs/", permissions));
    }
    writeAuthFile();
    return server.reloadAuth();
  }

  private WireClient connect(String token) throws IOException {
    WireClient c = new WireClient(server.address());
    Welcome w = c.hello(Hello.newBuilder().setToken(token));
    assertThat(w.hasFailure()).as("welcome %s", w).isFalse();
    return c;
  }

  private static Request.Builder inc(long amount) {
    return Request.newBuilder()
        .setIncrement(Increment.newBuilder().setName(name(P)).setAmount(amount));
  }

  private long value() throws IOException {
    try (WireClient c = connect(ops)) {
      return c.status(P).getValue();
    }
  }

  private int waiters() throws IOException {
    try (WireClient c = connect(ops)) {
      return c.status(P).getWaiters();
    }
  }

  private static long lease(WireClient c) throws IOException {
    Response r =
        c.call(
            Request.newBuilder()
                .setAcquireLease(
                    AcquireLease.newBuilder()
                        .setName(name(P))
                        .setAmount(1)
                        .setLeaseTtlNs(Duration.ofMinutes(5).toNanos())));
    assertThat(r.hasFailure()).as("lease %s", r).isFalse();
    return r.getLeaseGranted().getPermitId();
  }

  private static Request.Builder renew(long permit, Duration ttl) {
    return Request.newBuilder()
        .setRenewLease(
            RenewLease.newBuilder().setPermitId(permit).setTtlNs(ttl.toNanos()).setName(name(P)));
  }

  private static Request.Builder release(long permit) {
    return Request.newBuilder()
        .setReleaseLease(ReleaseLease.newBuilder().setPermitId(permit).setName(name(P)));
  }

  private static void assertPermissionDenied(Response r, String... parts) {
    assertThat(r.getFailure().getCode()).as("%s", r).isEqualTo(ErrorCode.PERMISSION_DENIED);
    assertThat(r.getFailure().getMessage()).contains(parts);
  }

  // ------------------------------------------------------------------ a) who may touch a lease

  @Test
  void aPrincipalWithoutReleaseCanNeitherRenewNorReleaseAnotherPrincipalsLease() throws Exception {
    try (WireClient a = connect(alice);
        WireClient b = connect(bob)) {
      a.call(inc(2));
      long permit = lease(a);

      assertPermissionDenied(
          b.call(renew(permit, Duration.ofMillis(1))),
          "permission 'release' on \"jobs/printers\"",
          "another principal took",
          "bob does not have it");
      assertPermissionDenied(b.call(release(permit)), "'release'", "bob does not have it");

      assertThat(value()).as("alice's lease still holds its permit").isEqualTo(1);
      assertThat(a.call(renew(permit, Duration.ofMinutes(1))).hasLeaseRenewed()).isTrue();
    }
  }

  @Test
  void theTakerRenewsAndReleasesItsOwnLeaseWithAcquireAlone() throws Exception {
    try (WireClient b = connect(bob);
        WireClient o = connect(ops)) {
      o.call(inc(1));
      long permit = lease(b);
      assertThat(b.call(renew(permit, Duration.ofMinutes(1))).hasLeaseRenewed()).isTrue();
      Response released = b.call(release(permit));
      assertThat(released.getLeaseReleased().getReleased()).as("%s", released).isTrue();
    }
    assertThat(value()).isEqualTo(1);
  }

  @Test
  void touchingAnotherPrincipalsLeaseIsAuditedDoneOrRefused() throws Exception {
    try (AuditCapture audit = AuditCapture.start();
        WireClient a = connect(alice);
        WireClient b = connect(bob);
        WireClient c = connect(carol)) {
      a.call(inc(1));
      long permit = lease(a);
      String id = Long.toUnsignedString(permit);

      b.call(renew(permit, Duration.ofHours(1)));
      assertThat(c.call(renew(permit, Duration.ofMinutes(2))).hasLeaseRenewed()).isTrue();
      assertThat(c.call(release(permit)).getLeaseReleased().getReleased()).isTrue();

      String lease = "lease " + id + " on 'jobs/printers' taken by alice";
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(audit.lines())
                      .anySatisfy(
                          l ->
                              assertThat(l)
                                  .contains("renew " + lease)
                                  .contains("principal=bob")
                                  .contains("outcome=\"PERMISSION_DENIED: permission 'release'"))
                      .anySatisfy(
                          l ->
                              assertThat(l)
                                  .contains("renew " + lease)
                                  .contains("principal=carol")
                                  .endsWith("outcome=ok"))
                      .anySatisfy(
                          l ->
                              assertThat(l)
                                  .contains("release " + lease)
                                  .contains("principal=carol")
                                  .endsWith("outcome=ok")));
      long own = lease(a);
      assertThat(a.call(renew(own, Duration.ofMinutes(1))).hasLeaseRenewed()).isTrue();
      assertThat(audit.lines())
          .as("the taker's own renewals are not audited")
          .noneMatch(l -> l.contains("principal=alice") && l.contains("renew lease"));
    }
  }

  // ------------------------------------------------------------------ b) a watch loses read

  private static ClientFrame watch(String prefix) {
    return ClientFrame.newBuilder()
        .setWatch(Watch.newBuilder().setId(7).setName(name(prefix)).setPrefix(true))
        .build();
  }

  /** The next watch event of kind FAILED, skipping others; at most 50 frames. */
  private static WatchEvent failedEvent(WireClient c) throws IOException {
    for (int i = 0; i < 50; i++) {
      ServerFrame f = c.receive();
      if (f.hasWatchEvent() && f.getWatchEvent().getKind() == WatchEvent.Kind.FAILED) {
        return f.getWatchEvent();
      }
    }
    throw new AssertionError("no FAILED event in 50 frames");
  }

  @Test
  void aRunningWatchEndsWhenAReloadTakesItsPrincipalsRead() throws Exception {
    try (WireClient b = new WireClient(server.address())) {
      assertThat(b.hello(Hello.newBuilder().setToken(bob).setNoSession(true)).hasFailure())
          .isFalse();
      b.send(watch("jobs/"));
      ServerFrame first = b.receive();
      assertThat(first.getWatchEvent().getName().toStringUtf8()).isEqualTo(P);

      assertThat(reloadWith("bob", List.of())).contains("1 watches ended");

      WatchEvent failed = failedEvent(b);
      assertThat(failed.getId()).isEqualTo(7);
      assertThat(failed.getFailure().getCode()).isEqualTo(ErrorCode.PERMISSION_DENIED);
      assertThat(failed.getFailure().getMessage())
          .contains("permission 'read' on \"jobs/\"")
          .contains("the watch ended");
      try (WireClient o = connect(ops)) {
        o.call(inc(1));
      }
      // the read's answer is the next frame: no event of the ended watch came before it
      b.status(P);
    }
  }

  // ------------------------------------------------------------------ c) a token expires

  @Test
  void aTokenThatExpiresEndsItsConnectionWatchAndWaiterWithoutAnyRequest() throws Exception {
    Instant expires = Instant.now().plusSeconds(3);
    String erin = issue("erin", expires);
    rules.add(new AuthFile.Rule("erin", "jobs/", List.of("read", "acquire")));
    writeAuthFile();
    server.reloadAuth();
    try (WireClient e = connect(erin)) {
      e.send(watch("jobs/"));
      assertThat(e.receive().hasWatchEvent()).isTrue();
      e.request(
          Request.newBuilder()
              .setAcquire(
                  Acquire.newBuilder()
                      .setName(name(P))
                      .setAmount(1)
                      .setTimeoutNs(Duration.ofSeconds(60).toNanos())));
      await().atMost(Duration.ofSeconds(5)).until(() -> waiters() == 1);

      // only keep-alives from here, as an idle client sends: they must not keep it working
      ServerFrame fatal = null;
      long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      boolean sending = true;
      while (fatal == null && System.nanoTime() < until) {
        if (sending) {
          try {
            e.send(ClientFrame.newBuilder().setKeepAlive(KeepAlive.getDefaultInstance()).build());
          } catch (IOException closed) {
            sending = false; // closed after its Fatal: read what was sent
          }
        }
        ServerFrame f = e.receive();
        if (f.hasFatal()) {
          fatal = f;
        } else if (f.hasPong()) {
          Thread.sleep(200);
        }
      }
      assertThat(fatal).as("a Fatal once the token expired").isNotNull();
      assertThat(Instant.now()).isAfterOrEqualTo(expires);
      assertThat(fatal.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      assertThat(fatal.getFatal().getFailure().getMessage()).startsWith("token: expired at");
      assertThat(e.closedByServer()).isTrue();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> waiters() == 0);
    try (WireClient o = connect(ops)) {
      o.call(inc(1));
    }
    assertThat(value()).as("the expired principal's waiter took nothing").isEqualTo(1);
  }

  // ------------------------------------------------------------------ d) a waiter loses acquire

  @Test
  void aWaitingRequestIsRefusedWhenAReloadTakesItsPermission() throws Exception {
    try (WireClient b = connect(bob)) {
      long id =
          b.request(
              Request.newBuilder()
                  .setAcquire(
                      Acquire.newBuilder()
                          .setName(name(P))
                          .setAmount(1)
                          .setTimeoutNs(Duration.ofSeconds(60).toNanos())));
      await().atMost(Duration.ofSeconds(5)).until(() -> waiters() == 1);

      assertThat(reloadWith("bob", List.of("read"))).contains("1 waiting requests refused");

      Response r = b.receive().getResponse();
      assertThat(r.getId()).isEqualTo(id);
      assertPermissionDenied(
          r, "permission 'acquire' on \"jobs/printers\"", "the rules changed while the request");
      try (WireClient o = connect(ops)) {
        o.call(inc(1));
      }
      assertThat(value()).as("the permit went to nobody").isEqualTo(1);
      assertThat(waiters()).isZero();
    }
  }

  @Test
  void aWaitingRequestStillAllowedAfterAReloadIsGrantedAsBefore() throws Exception {
    try (WireClient b = connect(bob)) {
      long id =
          b.request(
              Request.newBuilder()
                  .setAcquire(
                      Acquire.newBuilder()
                          .setName(name(P))
                          .setAmount(1)
                          .setTimeoutNs(Duration.ofSeconds(60).toNanos())));
      await().atMost(Duration.ofSeconds(5)).until(() -> waiters() == 1);
      assertThat(reloadWith("carol", List.of("read"))).doesNotContain("refused");
      try (WireClient o = connect(ops)) {
        o.call(inc(1));
      }
      Response r = b.receive().getResponse();
      assertThat(r.getId()).isEqualTo(id);
      assertThat(r.getGranted().getAmount()).isEqualTo(1);
    }
  }
}
