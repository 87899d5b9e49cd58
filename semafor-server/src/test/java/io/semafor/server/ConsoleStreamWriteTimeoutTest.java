package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.SetValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A console stream whose reader vanished without closing (its socket open, never read: a browser's
 * machine gone, or a process stopped) gives its slot back once the buffers between are full and a
 * write has waited the admin port's write timeout. On the JDK's HTTP server the stream's thread
 * blocked in that write for as long as the peer's kernel kept acknowledging: the slot never came
 * back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleStreamWriteTimeoutTest {
  /** Semaphores in the streamed page, each with a long name: every change is a large event. */
  private static final int SEMAPHORES = 200;

  private static final String PAD = "x".repeat(180);

  private @Nullable SemaforServer server;
  private final List<Socket> sockets = new ArrayList<>();
  private @Nullable WireClient client;

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private InetSocketAddress admin() {
    return Objects.requireNonNull(Objects.requireNonNull(server).adminAddress());
  }

  private static String semaphore(int i) {
    return "big/" + PAD + i;
  }

  /** Asks for a stream of the page of big semaphores on a socket that is then never read. */
  private Socket vanishedReader() throws IOException {
    Socket s = new Socket();
    sockets.add(s);
    s.setReceiveBufferSize(4096); // before connecting: the window it offers stays small
    s.connect(admin(), 2000);
    request(s);
    return s;
  }

  private static void request(Socket s) throws IOException {
    OutputStream out = s.getOutputStream();
    String get = "GET /api/stream?prefix=big/&limit=500 HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    out.write((get + "X-Semafor-Console: 1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** The status line of one more stream's answer; the stream is closed at once. */
  private String newStreamStatus() throws IOException {
    try (Socket s = new Socket()) {
      s.connect(admin(), 2000);
      s.setSoTimeout(5000);
      request(s);
      InputStream in = s.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int c = in.read(); c >= 0 && c != '\r' && line.length() < 200; c = in.read()) {
        line.append((char) c);
      }
      return line.toString();
    }
  }

  @Test
  void aStreamWhoseReaderStopsReadingGivesItsSlotBackWithinTheWriteTimeout() throws Exception {
    server = SemaforServer.start(ServerConfig.builder().port(0).adminPort(0).build());
    WireClient c = new WireClient(server.address());
    client = c;
    c.hello(0, 0);
    for (int i = 0; i < SEMAPHORES; i++) {
      c.call(
          Request.newBuilder()
              .setCreate(Create.newBuilder().setName(name(semaphore(i))).setInitial(1)));
    }
    // an open server's anonymous has every slot one principal may hold
    for (int i = 0; i < ConsoleStreams.PER_OPERATOR; i++) {
      vanishedReader();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(this::newStreamStatus, status -> status.startsWith("HTTP/1.1 503"));

    // each change sends every stream the page again until their buffers are full
    long deadline =
        System.nanoTime() + AdminServer.WRITE_TIMEOUT.plus(Duration.ofSeconds(45)).toNanos();
    String status = "";
    for (long value = 2; System.nanoTime() < deadline; value++) {
      c.call(
          Request.newBuilder()
              .setSetValue(SetValue.newBuilder().setName(name(semaphore(0))).setValue(value)));
      Thread.sleep(ConsoleStreams.MOST_OFTEN.toMillis());
      if (value % 10 == 0) {
        status = newStreamStatus();
        if (status.startsWith("HTTP/1.1 200")) {
          break;
        }
      }
    }
    assertThat(status)
        .as("a stream once the vanished readers' writes timed out")
        .startsWith("HTTP/1.1 200");
  }
}
