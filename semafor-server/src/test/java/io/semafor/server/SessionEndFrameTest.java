package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.CloseSession;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a connection learns that its session ended (docs/protocol.md §2): an expiry is announced at
 * once with a {@code Fatal} SESSION_EXPIRED, and a keep-alive for a session that has ended is
 * answered the same way, never with a {@code Pong}.
 */
class SessionEndFrameTest {
  private static final long TTL_NANOS = Duration.ofMillis(200).toNanos();

  private SemaforServer server;

  @BeforeEach
  void start() throws InterruptedException {
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).minSessionTtl(Duration.ofMillis(50)).build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aSessionThatExpiresIsAnnouncedOnItsConnectionWithAFatalSessionExpired() throws IOException {
    try (WireClient silent = new WireClient(server.address())) {
      silent.hello(0, TTL_NANOS);
      silent.socket.setSoTimeout(5_000); // far past the TTL: today's server says nothing at all

      ServerFrame frame = silent.receive();

      assertThat(frame.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.SESSION_EXPIRED);
      assertThat(frame.getFatal().getFailure().getMessage()).contains("" + silent.sessionId);
      assertThat(silent.closedByServer()).isTrue();
    }
  }

  @Test
  void aKeepAliveForASessionThatEndedIsAnsweredWithSessionExpiredNotAPong() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.hello(0, 0);
      assertThat(
              client
                  .call(Request.newBuilder().setCloseSession(CloseSession.getDefaultInstance()))
                  .hasSessionClosed())
          .isTrue();

      client.send(ClientFrame.newBuilder().setKeepAlive(KeepAlive.getDefaultInstance()).build());
      ServerFrame frame = client.receive();

      assertThat(frame.getFatal().getFailure().getCode()).isEqualTo(ErrorCode.SESSION_EXPIRED);
      assertThat(client.closedByServer()).isTrue();
    }
  }
}
