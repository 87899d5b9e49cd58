package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Watches as Server-Sent Events: ids are revisions, a resume from Last-Event-ID loses nothing. */
class WatchStreamTest {
  static EmbeddedSemafor semafor;
  static HttpGateway gateway;
  static Api api;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws InterruptedException {
    semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
    gateway =
        HttpGateway.start(
            semafor.server(), HttpConfig.DEFAULTS.withPort(0).withMaxWaitsPerPrincipal(1), null);
    api = new Api(gateway.baseUrl());
  }

  @AfterAll
  static void stop() {
    gateway.close();
    semafor.close();
  }

  /** One event as read from the stream. */
  record Event(long id, String kind, JsonNode data) {}

  /** A running stream: its events, and the request's body stream to close. */
  record Stream1(BlockingQueue<Event> events, Stream<String> lines) implements AutoCloseable {
    Event next(String kind) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        Event e = events.poll(100, TimeUnit.MILLISECONDS);
        if (e != null && e.kind().equals(kind)) {
          return e;
        }
      }
      throw new AssertionError("no " + kind + " event within 10 s");
    }

    @Override
    public void close() {
      lines.close();
    }
  }

  private static Stream1 open(String path, long lastEventId) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(gateway.baseUrl() + path))
            .header("Accept", "text/event-stream");
    if (lastEventId > 0) {
      b.header("Last-Event-ID", Long.toString(lastEventId));
    }
    HttpResponse<Stream<String>> r =
        HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofLines());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
    BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    Stream<String> lines = r.body();
    Thread reader =
        new Thread(
            () -> {
              long id = 0;
              String kind = "";
              StringBuilder data = new StringBuilder();
              try {
                for (String line : (Iterable<String>) lines::iterator) {
                  if (line.startsWith("id: ")) {
                    id = Long.parseLong(line.substring(4));
                  } else if (line.startsWith("event: ")) {
                    kind = line.substring(7);
                  } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                  } else if (line.isEmpty() && !kind.isEmpty()) {
                    events.add(new Event(id, kind, JSON.readTree(data.toString())));
                    kind = "";
                    data.setLength(0);
                  }
                }
              } catch (Exception e) {
                // the stream was closed
              }
            });
    reader.setDaemon(true);
    reader.start();
    return new Stream1(events, lines);
  }

  @Test
  void aWatchSendsTheStateThenEveryChangeWithItsRevisionAsId() throws Exception {
    api.put("/v1/semaphores/w-a", "{\"initial\": 1}");
    try (Stream1 s = open("/v1/semaphores/w-a/watch", 0)) {
      Event first = s.next("changed");
      assertThat(first.data().path("status").path("value").asLong()).isEqualTo(1);
      Event synced = s.next("synced");
      assertThat(synced.id()).isGreaterThanOrEqualTo(first.id());
      long revision = api.post("/v1/semaphores/w-a/increment", "{\"amount\": 2}").status();
      assertThat(revision).isEqualTo(200);
      Event change = s.next("changed");
      assertThat(change.data().path("status").path("value").asLong()).isEqualTo(3);
      assertThat(change.id()).isGreaterThan(first.id());
      assertThat(change.id()).isEqualTo(change.data().path("status").path("revision").asLong());
    }
  }

  @Test
  void aResumeFromLastEventIdTellsWhatChangedMeanwhile() throws Exception {
    api.put("/v1/semaphores/w-b", "{\"initial\": 0}");
    long last;
    try (Stream1 s = open("/v1/watch?prefix=w-b", 0)) {
      s.next("synced");
      api.post("/v1/semaphores/w-b/increment", "{\"amount\": 1}");
      last = s.next("changed").id();
    }
    awaitWaitsFree();
    api.post("/v1/semaphores/w-b/increment", "{\"amount\": 1}");
    api.post("/v1/semaphores/w-b/increment", "{\"amount\": 1}");
    try (Stream1 s = open("/v1/watch?prefix=w-b", last)) {
      Event caughtUp = s.next("changed");
      assertThat(caughtUp.data().path("status").path("value").asLong()).isIn(1L, 3L);
      if (caughtUp.data().path("status").path("value").asLong() == 1) {
        caughtUp = s.next("changed"); // revision `last` again: a resume may repeat it, never skip
      }
      assertThat(caughtUp.data().path("status").path("value").asLong()).isEqualTo(3);
      assertThat(caughtUp.id()).isGreaterThan(last);
      s.next("synced");
    }
  }

  @Test
  void aReaderThatVanishesIsNoticedWithinSeconds() throws Exception {
    api.put("/v1/semaphores/w-c", "{\"initial\": 0}");
    Socket raw = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort());
    OutputStream out = raw.getOutputStream();
    out.write(
        "GET /v1/semaphores/w-c/watch HTTP/1.1\r\nHost: x\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(raw.getInputStream(), StandardCharsets.UTF_8));
    assertThat(in.readLine()).startsWith("HTTP/1.1 200");
    raw.close();
    // the principal may hold one wait (this gateway's bound): a new stream is admitted only once
    // the vanished one's keep-alive write failed and it was let go
    awaitWaitsFree();
  }

  private static void awaitWaitsFree() {
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> api.post("/v1/semaphores/w-free/decrement", "{}").status() != 429);
  }
}
