package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.core.Limits;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 point 8, on the wire: connection caps, the hello, idle and half-sent-frame timeouts, and
 * sessions per source address, each refused with RESOURCE_EXHAUSTED naming the limit.
 */
class ClientLimitsTest {
  private static final long SECOND = 1_000_000_000L;

  private @Nullable SemaforServer server;
  private final List<WireClient> clients = new ArrayList<>();

  private void start(ClientLimits limits) throws InterruptedException {
    start(limits, Limits.DEFAULT);
  }

  private void start(ClientLimits limits, Limits machine) throws InterruptedException {
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).clientLimits(limits).limits(machine).build());
  }

  @AfterEach
  void stop() throws IOException {
    for (WireClient c : clients) {
      c.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private WireClient connect() throws IOException {
    return connectFrom(null);
  }

  private SemaforServer server() {
    SemaforServer s = server;
    if (s == null) {
      throw new IllegalStateException("not started");
    }
    return s;
  }

  private WireClient connectFrom(@Nullable InetAddress from) throws IOException {
    WireClient c = new WireClient(server().address(), from);
    clients.add(c);
    return c;
  }

  private static InetAddress otherLoopback() throws IOException {
    return InetAddress.getByName("127.0.0.2");
  }

  private static Failure fatal(WireClient c) throws IOException {
    ServerFrame frame = c.receive();
    assertThat(frame.hasFatal()).as("a Fatal, got %s", frame).isTrue();
    return frame.getFatal().getFailure();
  }

  private static Response create(WireClient c, String semaphore) throws IOException {
    return c.call(
        Request.newBuilder().setCreate(Create.newBuilder().setName(name(semaphore)).setInitial(1)));
  }

  @Test
  void aConnectionOverTheNodesCapIsRefusedNamingIt() throws Exception {
    start(ClientLimits.DEFAULT.withMaxConnections(2));
    connect().hello(0, 0);
    connect().hello(0, 0);
    WireClient third = connect();
    Failure refused = fatal(third);
    assertThat(refused.getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.getMessage()).startsWith("maxConnections (2)");
    assertThat(third.closedByServer()).isTrue();
  }

  @Test
  void aClosedConnectionMakesRoomUnderTheCap() throws Exception {
    start(ClientLimits.DEFAULT.withMaxConnections(1));
    WireClient first = connect();
    first.hello(0, 0);
    first.close();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              try (WireClient next = new WireClient(server().address())) {
                return !next.hello(0, 0).hasFailure();
              } catch (IOException refused) {
                return false;
              }
            });
  }

  @Test
  void aConnectionOverTheCapPerAddressIsRefusedWhileAnotherAddressConnects() throws Exception {
    start(ClientLimits.DEFAULT.withMaxConnectionsPerClient(2));
    connect().hello(0, 0);
    connect().hello(0, 0);
    Failure refused = fatal(connect());
    assertThat(refused.getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.getMessage())
        .startsWith("maxConnectionsPerClient (2) reached for 127.0.0.1");
    WireClient other = connectFrom(otherLoopback());
    assertThat(other.hello(0, 0).hasFailure()).isFalse();
  }

  @Test
  void aConnectionThatSendsNoHelloIsClosedAfterTheHelloTimeout() throws Exception {
    start(
        ClientLimits.DEFAULT.withTimeouts(
            Duration.ofMillis(300), Duration.ofSeconds(30), Duration.ofSeconds(60)));
    WireClient silent = connect();
    Failure closed = fatal(silent);
    assertThat(closed.getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(closed.getMessage()).startsWith("helloTimeout (300ms)");
    assertThat(silent.closedByServer()).isTrue();
  }

  @Test
  void aHalfSentFrameIsClosedAfterTheFrameTimeout() throws Exception {
    start(
        ClientLimits.DEFAULT.withTimeouts(
            Duration.ofSeconds(30), Duration.ofMillis(300), Duration.ofSeconds(60)));
    WireClient slow = connect();
    slow.hello(0, 0);
    slow.sendRaw(new byte[] {0, 0, 1, 0, 1, 2, 3}); // 256 bytes announced, 3 sent
    Failure closed = fatal(slow);
    assertThat(closed.getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(closed.getMessage()).startsWith("frameTimeout (300ms)");
    assertThat(slow.closedByServer()).isTrue();
  }

  @Test
  void aConnectionWhoseSessionClosedIsClosedAfterTheIdleTimeout() throws Exception {
    start(
        ClientLimits.DEFAULT.withTimeouts(
            Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofMillis(300)));
    WireClient c = connect();
    c.hello(0, 0);
    Response closedSession =
        c.call(
            Request.newBuilder()
                .setCloseSession(io.semafor.protocol.v1.CloseSession.getDefaultInstance()));
    assertThat(closedSession.hasFailure()).as("%s", closedSession).isFalse();
    Failure closed = fatal(c);
    assertThat(closed.getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(closed.getMessage()).startsWith("idleTimeout (300ms)");
  }

  @Test
  void aSessionKeptAliveOutlivesTheHelloAndIdleTimeouts() throws Exception {
    start(
        ClientLimits.DEFAULT.withTimeouts(
            Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(200)));
    WireClient c = connect();
    c.hello(0, 2 * SECOND);
    long until = System.nanoTime() + SECOND;
    for (int i = 0; i < 100 && System.nanoTime() < until; i++) {
      c.send(ClientFrame.newBuilder().setKeepAlive(KeepAlive.getDefaultInstance()).build());
      assertThat(c.receive().hasPong()).isTrue();
      Thread.sleep(100); // the client's keep-alive period, not a wait for the server
    }
    assertThat(create(c, "still-here").getCreated().getCreated()).isTrue();
  }

  @Test
  void sessionsOverTheQuotaPerAddressAreRefusedNamingIt() throws Exception {
    start(ClientLimits.DEFAULT.withMaxSessionsPerClient(3));
    for (int i = 0; i < 3; i++) {
      assertThat(connect().hello(0, 0).hasFailure()).isFalse();
    }
    Welcome refused = connect().hello(0, 0);
    assertThat(refused.getFailure().getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.getFailure().getMessage())
        .startsWith("maxSessionsPerClient (3) reached for 127.0.0.1");
  }

  @Test
  void sessionsLeftByClosedConnectionsCountUntilTheyExpire() throws Exception {
    start(ClientLimits.DEFAULT.withMaxSessionsPerClient(2));
    WireClient a = connect();
    a.hello(0, SECOND);
    WireClient b = connect();
    b.hello(0, SECOND);
    a.close();
    b.close();
    assertThat(connect().hello(0, 0).getFailure().getCode())
        .as("still counted after their connections closed")
        .isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              try (WireClient next = new WireClient(server().address())) {
                return !next.hello(0, 0).hasFailure();
              }
            });
  }

  @Test
  void oneAddressHoldingItsWholeQuotaWithLongSessionsDoesNotLockOutAnother() throws Exception {
    // the lock-out of issue 13: one client opens every session it may with a 10-minute TTL and
    // closes its connections; now it only locks itself out
    start(ClientLimits.DEFAULT.withMaxSessionsPerClient(200), Limits.DEFAULT.withMaxSessions(250));
    int opened = 0;
    for (int i = 0; i < 250; i++) {
      try (WireClient abuser = new WireClient(server().address())) {
        if (!abuser.hello(0, 600 * SECOND).hasFailure()) {
          opened++;
        }
      }
    }
    assertThat(opened).isEqualTo(200);
    assertThat(server().sessionCount()).isEqualTo(200);
    Welcome abuserAgain = connect().hello(0, 0);
    assertThat(abuserAgain.getFailure().getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    WireClient other = connectFrom(otherLoopback());
    assertThat(other.hello(0, 0).hasFailure()).isFalse();
    assertThat(create(other, "served").getCreated().getCreated()).isTrue();
  }

  @Test
  void aClosedSessionGivesItsQuotaBack() throws Exception {
    start(ClientLimits.DEFAULT.withMaxSessionsPerClient(1));
    WireClient c = connect();
    c.hello(0, 0);
    c.call(
        Request.newBuilder()
            .setCloseSession(io.semafor.protocol.v1.CloseSession.getDefaultInstance()));
    assertThat(connect().hello(0, 0).hasFailure()).isFalse();
  }

  @Test
  void aHelloOverTheNodesSessionLimitIsRefusedNamingIt() throws Exception {
    start(ClientLimits.DEFAULT, Limits.DEFAULT.withMaxSessions(1));
    assertThat(connect().hello(0, 0).hasFailure()).isFalse();
    Welcome refused = connectFrom(otherLoopback()).hello(0, 0);
    assertThat(refused.getFailure().getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(refused.getFailure().getMessage()).startsWith("maxSessions (1)");
    // the refused Hello gave its quota back: the same address may try again
    assertThat(connect().hello(0, 0).getFailure().getMessage()).startsWith("maxSessions (1)");
  }

  @Test
  void aSessionTtlAboveTheOperatorsCapIsRefusedSoNoSessionOutlivesIt() throws Exception {
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).maxSessionTtl(Duration.ofMinutes(10)).build());
    Welcome refused = connect().hello(0, 11 * 60 * SECOND);
    assertThat(refused.getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(refused.getFailure().getMessage()).startsWith("sessionTtl: must be within");
    assertThat(server().sessionCount()).isZero();
  }
}
