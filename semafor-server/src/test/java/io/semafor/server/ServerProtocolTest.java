package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server at the level of the wire: frames, sessions, answers that come later, bad input. */
class ServerProtocolTest {
  private static final long SECOND = 1_000_000_000L;

  private SemaforServer server;

  @BeforeEach
  void start() throws InterruptedException {
    server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .minSessionTtl(Duration.ofMillis(50))
                .defaultSessionTtl(Duration.ofSeconds(10))
                .build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private WireClient connect() throws IOException {
    WireClient client = new WireClient(server.address());
    Welcome welcome = client.hello(0, 0);
    assertThat(welcome.hasFailure()).as("welcome %s", welcome).isFalse();
    return client;
  }

  private static Request.Builder create(String name, long initial) {
    return Request.newBuilder()
        .setCreate(Create.newBuilder().setName(name(name)).setInitial(initial));
  }

  @Test
  void aNewSessionIsWelcomedWithItsIdAndTheDefaultTtl() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      Welcome welcome = client.hello(0, 0);
      assertThat(welcome.getSessionId()).isPositive();
      assertThat(welcome.getSessionTtlNs()).isEqualTo(10 * SECOND);
      assertThat(welcome.getResumed()).isFalse();
    }
  }

  @Test
  void aRequestIsAnsweredWithItsIdAndRevision() throws IOException {
    try (WireClient client = connect()) {
      Response created = client.call(create("printers", 3));
      assertThat(created.getCreated().getCreated()).isTrue();
      assertThat(created.getRevision()).isPositive();
    }
  }

  @Test
  void aWaitingRequestIsAnsweredWhenItIsGranted() throws IOException {
    try (WireClient waiter = connect();
        WireClient other = connect()) {
      waiter.call(create("x", 0));
      long id =
          waiter.request(
              Request.newBuilder()
                  .setAcquire(
                      Acquire.newBuilder().setName(name("x")).setAmount(1).setTimeoutNs(-1)));
      other.call(
          Request.newBuilder()
              .setIncrement(Increment.newBuilder().setName(name("x")).setAmount(1)));
      Response grant = waiter.receive().getResponse();
      assertThat(grant.getId()).isEqualTo(id);
      assertThat(grant.getGranted().getAmount()).isEqualTo(1);
    }
  }

  @Test
  void aNameThatIsNotUtf8GetsInvalidArgumentAndTheConnectionStays() throws IOException {
    try (WireClient client = connect()) {
      Response bad =
          client.call(
              Request.newBuilder()
                  .setCreate(
                      Create.newBuilder().setName(ByteString.copyFrom(new byte[] {(byte) 0xFF}))));
      assertThat(bad.getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(bad.getFailure().getMessage()).startsWith("name:");
      assertThat(client.call(create("fine", 1)).getCreated().getCreated()).isTrue();
    }
  }

  @Test
  void aRequestWithNoOperationGetsInvalidArgument() throws IOException {
    try (WireClient client = connect()) {
      Response bad = client.call(Request.newBuilder());
      assertThat(bad.getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(bad.getFailure().getMessage()).startsWith("op:");
    }
  }

  @Test
  void aFrameThatIsNotAClientFrameClosesThatConnectionOnly() throws IOException {
    try (WireClient good = connect();
        WireClient bad = connect()) {
      bad.sendRaw(new byte[] {0, 0, 0, 3, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
      ServerFrame fatal = bad.receive();
      assertThat(fatal.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(bad.closedByServer()).isTrue();
      assertThat(good.call(create("still-serving", 1)).getCreated().getCreated()).isTrue();
    }
  }

  @Test
  void anOversizedFrameClosesThatConnectionOnlyNamingTheLimit() throws IOException {
    try (WireClient good = connect();
        WireClient bad = connect()) {
      bad.sendRaw(new byte[] {0, 0x20, 0, 0});
      ServerFrame fatal = bad.receive();
      assertThat(fatal.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
      assertThat(fatal.getFatal().getFailure().getMessage()).startsWith("maxFrameBytes");
      assertThat(bad.closedByServer()).isTrue();
      assertThat(good.call(create("still-serving", 1)).getCreated().getCreated()).isTrue();
    }
  }

  @Test
  void aRequestBeforeHelloClosesTheConnection() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.request(create("x", 1));
      assertThat(client.receive().getFatal().getFailure().getMessage()).startsWith("request:");
      assertThat(client.closedByServer()).isTrue();
    }
  }

  @Test
  void anUnknownProtocolVersionIsRefused() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.send(
          ClientFrame.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(99)).build());
      assertThat(client.receive().getFatal().getFailure().getMessage())
          .startsWith("protocolVersion:");
    }
  }

  @Test
  void aTtlOutsideTheServersBoundsIsRefusedNamingIt() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      Welcome welcome = client.hello(0, 10 * 3600 * SECOND);
      assertThat(welcome.getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(welcome.getFailure().getMessage()).startsWith("sessionTtl:");
    }
  }

  @Test
  void aSessionResumedOnANewConnectionKeepsItsWaitersAndGetsTheirGrantsThere() throws IOException {
    WireClient first = connect();
    first.call(create("x", 0));
    long waiting =
        first.request(
            Request.newBuilder()
                .setAcquire(Acquire.newBuilder().setName(name("x")).setAmount(1).setTimeoutNs(-1)));
    long session = first.sessionId;
    first.close();

    try (WireClient again = new WireClient(server.address());
        WireClient other = connect()) {
      Welcome welcome = again.hello(session, first.sessionSecret, 0);
      assertThat(welcome.getResumed()).isTrue();
      assertThat(welcome.getSessionId()).isEqualTo(session);
      // as a client does on resume: send again what has no answer (it is applied once), since the
      // server may close the old connection before reading what the client wrote to it last
      again.send(
          ClientFrame.newBuilder()
              .setRequest(
                  Request.newBuilder()
                      .setId(waiting)
                      .setAcquire(
                          Acquire.newBuilder().setName(name("x")).setAmount(1).setTimeoutNs(-1)))
              .build());
      other.call(
          Request.newBuilder()
              .setIncrement(Increment.newBuilder().setName(name("x")).setAmount(1)));
      ServerFrame frame = again.receive();
      Response grant = frame.getResponse();
      assertThat(grant.getId()).as("%s", frame).isEqualTo(waiting);
      assertThat(grant.getGranted().getAmount()).isEqualTo(1);
    }
  }

  @Test
  void resumingASessionThatEndedSaysSoAndAllowsANewHello() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      Welcome refused = client.hello(987_654, 0);
      assertThat(refused.getFailure().getCode()).isEqualTo(ErrorCode.SESSION_EXPIRED);
      assertThat(client.hello(0, 0).hasFailure()).isFalse();
    }
  }

  @Test
  void aSilentSessionExpiresAfterItsTtlAndItsPermitsComeBack() throws IOException {
    try (WireClient holder = new WireClient(server.address());
        WireClient watcher = connect()) {
      holder.hello(0, SECOND / 5);
      watcher.call(create("x", 1));
      Response taken =
          holder.call(
              Request.newBuilder()
                  .setAcquire(Acquire.newBuilder().setName(name("x")).setAmount(1).setOwned(true)));
      assertThat(taken.getGranted().getAmount()).isEqualTo(1);

      await().atMost(Duration.ofSeconds(5)).until(() -> value(watcher, "x") == 1);
    }
  }

  @Test
  void keepAlivesKeepASessionAlivePastItsTtl() throws Exception {
    try (WireClient holder = new WireClient(server.address());
        WireClient watcher = connect()) {
      holder.hello(0, SECOND / 5);
      watcher.call(create("x", 1));
      holder.call(
          Request.newBuilder()
              .setAcquire(Acquire.newBuilder().setName(name("x")).setAmount(1).setOwned(true)));
      long until = System.nanoTime() + SECOND;
      while (System.nanoTime() < until) {
        holder.send(ClientFrame.newBuilder().setKeepAlive(KeepAlive.getDefaultInstance()).build());
        assertThat(holder.receive().hasPong()).isTrue();
        Thread.sleep(50);
      }
      assertThat(value(watcher, "x")).isZero();
    }
  }

  private static long value(WireClient client, String name) throws IOException {
    return client.status(name).getValue();
  }
}
