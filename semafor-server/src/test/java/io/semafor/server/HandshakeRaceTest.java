package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client may send requests the moment it has read its {@code Welcome}: the server must already
 * know the connection's session by then. Many connections do exactly that at once, so the thread
 * applying the open (often another connection's event loop) and the connection's own event loop
 * race; every request must be answered and counted once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HandshakeRaceTest {
  private static final int THREADS = 8;
  private static final int SESSIONS_PER_THREAD = 150;
  private static final int INCREMENTS = 20;

  private SemaforServer server;

  @BeforeEach
  void start() throws InterruptedException {
    // 1,200 sessions from one address, each left to expire: over the default quota per client
    server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .clientLimits(ClientLimits.DEFAULT.withMaxSessionsPerClient(10_000))
                .build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void requestsSentTheMomentWelcomeArrivesAreAllAnsweredAndAppliedOnce() throws Exception {
    try (WireClient admin = new WireClient(server.address())) {
      admin.hello(0, 0);
      admin.call(Request.newBuilder().setCreate(Create.newBuilder().setName(name("counter"))));
    }
    byte[] burst = incrementBurst();
    ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
    AtomicLong answered = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        runs.add(
            pool.submit(
                () -> {
                  for (int s = 0; s < SESSIONS_PER_THREAD; s++) {
                    openAndSendAtOnce(burst, refused, answered);
                  }
                  return null;
                }));
      }
      for (Future<?> run : runs) {
        run.get(90, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(refused).as("frames other than answers").isEmpty();
    long total = (long) THREADS * SESSIONS_PER_THREAD * INCREMENTS;
    assertThat(answered.get()).isEqualTo(total);
    try (WireClient admin = new WireClient(server.address())) {
      admin.hello(0, 0);
      assertThat(
              admin
                  .call(
                      Request.newBuilder()
                          .setIncrement(
                              Increment.newBuilder().setName(name("counter")).setAmount(1)))
                  .getIncremented()
                  .getValue())
          .as("every increment applied once, and only those answered")
          .isEqualTo(total + 1);
    }
  }

  /** The requests a client sends right after its Welcome, as one write. */
  private static byte[] incrementBurst() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 1; i <= INCREMENTS; i++) {
      Frames.write(
          bytes,
          ClientFrame.newBuilder()
              .setRequest(
                  Request.newBuilder()
                      .setId(i)
                      .setIncrement(Increment.newBuilder().setName(name("counter")).setAmount(1)))
              .build());
    }
    return bytes.toByteArray();
  }

  private void openAndSendAtOnce(
      byte[] burst, ConcurrentLinkedQueue<String> refused, AtomicLong answered) throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.socket.setSoTimeout((int) Duration.ofSeconds(20).toMillis());
      Welcome welcome = client.hello(0, 0);
      assertThat(welcome.hasFailure()).as("welcome %s", welcome).isFalse();
      client.sendRaw(burst);
      for (int i = 0; i < INCREMENTS; i++) {
        ServerFrame frame;
        try {
          frame = client.receive();
        } catch (IOException closed) {
          refused.add("connection closed after " + i + " answers: " + closed);
          return;
        }
        if (frame.hasResponse() && frame.getResponse().hasIncremented()) {
          answered.incrementAndGet();
        } else {
          refused.add(frame.toString());
          return;
        }
      }
    }
  }
}
