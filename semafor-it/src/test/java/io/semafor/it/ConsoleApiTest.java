package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console's JSON API and live stream on the admin port (docs/console.md), against a real server
 * over real sockets: what the page shows, how it pages and filters, what a bad parameter gets, and
 * that its actions change the semaphores as a client's requests would. Authentication and
 * permissions are in {@link ConsoleSecurityTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<InputStream> streams = new ArrayList<>();
  private EmbeddedSemafor semafor;
  private String base;

  @BeforeEach
  void start() {
    semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0).adminPort(0));
    InetSocketAddress admin = semafor.server().adminAddress();
    base = "http://127.0.0.1:" + admin.getPort();
  }

  @AfterEach
  void stop() throws Exception {
    for (InputStream s : streams) {
      s.close();
    }
    semafor.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode getJson(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private HttpResponse<String> action(String method, String path, boolean withHeader)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (withHeader) {
      b.header("X-Semafor-Console", "1");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void thePageIsServedAtTheRootWithItsScriptAndStyleAndNothingElse() throws Exception {
    HttpResponse<String> page = get("/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
    assertThat(page.headers().firstValue("Content-Security-Policy")).isPresent();
    assertThat(page.body()).contains("<script src=\"console.js\"");
    assertThat(get("/console.js").statusCode()).isEqualTo(200);
    assertThat(get("/console.css").statusCode()).isEqualTo(200);
    assertThat(get("/etc/passwd").statusCode()).isEqualTo(404);
    assertThat(get("/../console.js").statusCode()).isIn(400, 404);
  }

  @Test
  void theListShowsEachSemaphoresValueCapacityAndCounts() throws Exception {
    SemaforClient client = semafor.client();
    client.create("printers", 2);
    client.semaphore("scanners").create(1, io.semafor.SemaphoreOptions.DEFAULT.capacity(3));
    JsonNode page = getJson("/api/semaphores");
    assertThat(page.get("semaphores")).hasSize(2);
    JsonNode printers = page.get("semaphores").get(0);
    assertThat(printers.get("name").asText()).isEqualTo("printers");
    assertThat(printers.get("value").asLong()).isEqualTo(2);
    assertThat(printers.get("capacity").isNull()).isTrue();
    JsonNode scanners = page.get("semaphores").get(1);
    assertThat(scanners.get("capacity").asLong()).isEqualTo(3);
    assertThat(page.get("more").asBoolean()).isFalse();
  }

  @Test
  void theListIsFilteredByPrefixAndPagedOnTheServer() throws Exception {
    SemaforClient client = semafor.client();
    for (int i = 0; i < 25; i++) {
      client.create(String.format("jobs/%02d", i), 1);
    }
    client.create("other", 1);
    JsonNode first = getJson("/api/semaphores?prefix=" + enc("jobs/") + "&limit=10");
    assertThat(first.get("semaphores")).hasSize(10);
    assertThat(first.get("more").asBoolean()).isTrue();
    assertThat(first.get("next").asText()).isEqualTo("jobs/09");
    JsonNode third =
        getJson("/api/semaphores?prefix=" + enc("jobs/") + "&limit=10&after=" + enc("jobs/19"));
    List<String> names = new ArrayList<>();
    third.get("semaphores").forEach(s -> names.add(s.get("name").asText()));
    assertThat(names).containsExactly("jobs/20", "jobs/21", "jobs/22", "jobs/23", "jobs/24");
    assertThat(third.get("more").asBoolean()).isFalse();
  }

  @Test
  void oneSemaphoreShowsItsQueueHoldersAndHowLongEachHasWaited() throws Exception {
    NamedSemaphore printers = semafor.client().create("printers", 1);
    try (SemaforClient alice =
            SemaforClient.builder().addresses(semafor.address()).clientName("alice").connect();
        SemaforClient bob =
            SemaforClient.builder().addresses(semafor.address()).clientName("bob").connect()) {
      Permit held = alice.semaphore("printers").acquirePermit(1);
      CompletableFuture<Optional<Permit>> waiting =
          bob.semaphore("printers").acquirePermitAsync(1, Duration.ofMinutes(1));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> getJson("/api/semaphore?name=printers").get("queue").size() == 1);
      JsonNode detail = getJson("/api/semaphore?name=printers");
      assertThat(detail.get("status").get("value").asLong()).isZero();
      assertThat(detail.get("holders").get(0).get("sessionId").asLong())
          .isEqualTo(alice.sessionId());
      assertThat(detail.get("holders").get(0).get("client").get("name").asText())
          .isEqualTo("alice");
      assertThat(detail.get("holders").get(0).get("owned").asLong()).isEqualTo(1);
      JsonNode waiter = detail.get("queue").get(0);
      assertThat(waiter.get("sessionId").asLong()).isEqualTo(bob.sessionId());
      assertThat(waiter.get("client").get("name").asText()).isEqualTo("bob");
      assertThat(waiter.get("amount").asLong()).isEqualTo(1);
      assertThat(waiter.get("waitingMillis").isNumber()).isTrue();
      assertThat(waiter.get("timeoutInMillis").asLong()).isBetween(1L, 60_000L);

      held.close();
      Permit granted = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
      JsonNode after = getJson("/api/semaphore?name=printers");
      assertThat(after.get("queue")).isEmpty();
      assertThat(after.get("holders").get(0).get("client").get("name").asText()).isEqualTo("bob");
      // alice's grant waited nothing, bob's waited: both are in the histogram
      assertThat(after.get("waitHistogram").get("count").asLong()).isEqualTo(2);
      granted.close();
    }
    assertThat(printers.value()).isEqualTo(1);
  }

  @Test
  void aSemaphoreThatDoesNotExistIsShownAsSuch() throws Exception {
    JsonNode detail = getJson("/api/semaphore?name=nothing");
    assertThat(detail.get("exists").asBoolean()).isFalse();
  }

  @Test
  void aBadParameterIsRefusedWithItsNameAndChangesNothing() throws Exception {
    NamedSemaphore s = semafor.client().create("printers", 4);
    HttpResponse<String> badLimit = get("/api/semaphores?limit=0");
    assertThat(badLimit.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(badLimit.body()).get("error").asText()).isEqualTo("INVALID_ARGUMENT");
    assertThat(JSON.readTree(badLimit.body()).get("message").asText()).startsWith("limit:");
    HttpResponse<String> noName = get("/api/semaphore");
    assertThat(noName.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(noName.body()).get("message").asText()).startsWith("name:");
    HttpResponse<String> badValue =
        action("POST", "/api/semaphore/value?name=printers&value=lots", true);
    assertThat(badValue.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(badValue.body()).get("message").asText()).startsWith("value:");
    assertThat(rawStatusLine("GET /api/semaphore?name=%zz HTTP/1.1")).contains(" 400 ");
    assertThat(get("/api/nothing").statusCode()).isEqualTo(404);
    assertThat(action("PUT", "/api/semaphores", true).statusCode()).isEqualTo(405);
    assertThat(s.value()).isEqualTo(4);
  }

  /** Sends a request line no HTTP client library would send, and returns the status line. */
  private String rawStatusLine(String requestLine) throws Exception {
    return rawStatusLine(requestLine, "127.0.0.1");
  }

  private String rawStatusLine(String requestLine, String host) throws Exception {
    try (java.net.Socket socket =
        new java.net.Socket(
            semafor.server().adminAddress().getAddress(),
            semafor.server().adminAddress().getPort())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(
              (requestLine + "\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      return new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
          .readLine();
    }
  }

  @Test
  void anActionWithoutTheConsolesHeaderIsRefusedAndChangesNothing() throws Exception {
    NamedSemaphore s = semafor.client().create("printers", 4);
    HttpResponse<String> r = action("DELETE", "/api/semaphore?name=printers", false);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).get("message").asText()).startsWith("X-Semafor-Console:");
    assertThat(s.value()).isEqualTo(4);
  }

  @Test
  void setValueDeleteAndReleaseALeaseChangeTheSemaphoresAsAClientWould() throws Exception {
    SemaforClient client = semafor.client();
    NamedSemaphore s = client.create("printers", 4);
    HttpResponse<String> set = action("POST", "/api/semaphore/value?name=printers&value=7", true);
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(s.value()).isEqualTo(7);

    NamedSemaphore leased = client.create("licences", 2);
    try (SemaforClient holder = semafor.newClient()) {
      var lease = holder.semaphore("licences").acquireLease(1, Duration.ofMinutes(5));
      assertThat(leased.value()).isEqualTo(1);
      String permit =
          getJson("/api/semaphore?name=licences").get("leases").get(0).get("permitId").asText();
      HttpResponse<String> release =
          action("POST", "/api/lease/release?name=licences&permit=" + permit, true);
      assertThat(release.statusCode()).as(release.body()).isEqualTo(200);
      assertThat(leased.value()).isEqualTo(2);
      assertThat(lease).isNotNull();
    }

    HttpResponse<String> delete = action("DELETE", "/api/semaphore?name=printers", true);
    assertThat(delete.statusCode()).as(delete.body()).isEqualTo(200);
    assertThat(getJson("/api/semaphore?name=printers").get("exists").asBoolean()).isFalse();
    HttpResponse<String> again = action("DELETE", "/api/semaphore?name=printers", true);
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(again.body()).get("error").asText()).isEqualTo("NOT_FOUND");
  }

  @Test
  void theActionsSessionIsClosedAfterIt() throws Exception {
    semafor.client().create("printers", 4);
    int before = semafor.server().sessionCount();
    assertThat(action("POST", "/api/semaphore/value?name=printers&value=1", true).statusCode())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(5)).until(() -> semafor.server().sessionCount() == before);
  }

  /** Opens the stream and returns its events ("kind data") as they come. */
  private BlockingQueue<String> stream(String query) throws Exception {
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/stream?" + query))
                .header("X-Semafor-Console", "1")
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    streams.add(r.body());
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String event = null;
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  if (line.startsWith("event: ")) {
                    event = line.substring(7);
                  } else if (line.startsWith("data: ") && event != null) {
                    events.add(event + " " + line.substring(6));
                  }
                }
              } catch (Exception closed) {
                // the test closed it
              }
            },
            "console-stream-reader");
    reader.setDaemon(true);
    reader.start();
    return events;
  }

  private static JsonNode next(BlockingQueue<String> events, String kind) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      String e = events.poll(100, TimeUnit.MILLISECONDS);
      if (e != null && e.startsWith(kind + " ")) {
        return JSON.readTree(e.substring(kind.length() + 1));
      }
    }
    throw new AssertionError("no " + kind + " event in 10 s");
  }

  @Test
  void theStreamSendsTheViewThenEachChangeOfWhatItShows() throws Exception {
    NamedSemaphore s = semafor.client().create("printers", 3);
    BlockingQueue<String> events = stream("name=printers");
    assertThat(next(events, "list").get("semaphores").get(0).get("value").asLong()).isEqualTo(3);
    assertThat(next(events, "semaphore").get("status").get("value").asLong()).isEqualTo(3);
    assertThat(next(events, "node").get("role").asText()).isEqualTo("leader");
    assertThat(next(events, "sessions").get("total").asInt()).isPositive();

    s.set(5);
    assertThat(next(events, "semaphore").get("status").get("value").asLong()).isEqualTo(5);
    s.increment(2);
    JsonNode latest = next(events, "semaphore");
    // changes closer than the stream's pace are shown once, as the latest state
    while (latest.get("status").get("value").asLong() != 7) {
      latest = next(events, "semaphore");
    }
    assertThat(latest.get("status").get("value").asLong()).isEqualTo(7);
  }

  @Test
  void beyondEightOpenStreamsOfOnePrincipalOneMoreIsTurnedAwayWithBusy() throws Exception {
    for (int i = 0; i < 8; i++) {
      next(stream(""), "list");
    }
    HttpResponse<String> one =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/stream"))
                .header("X-Semafor-Console", "1")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(one.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(one.body()).get("error").asText()).isEqualTo("BUSY");
  }

  @Test
  void aStreamWithoutTheConsolesHeaderIsRefused() throws Exception {
    // an image tag on another site's page could open one otherwise, and hold a thread
    HttpResponse<String> r = get("/api/stream");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).get("message").asText()).startsWith("X-Semafor-Console:");
  }

  @Test
  void withoutAnAuthFileARequestAddressedToAnotherHostNameIsRefused() throws Exception {
    // DNS rebinding: a page of evil.example made same-origin with the console says its own name
    assertThat(rawStatusLine("GET /api/semaphores HTTP/1.1", "evil.example:7401"))
        .contains(" 403 ");
    assertThat(rawStatusLine("GET /api/semaphores HTTP/1.1", "localhost")).contains(" 200 ");
    assertThat(rawStatusLine("GET /api/semaphores HTTP/1.1", "127.0.0.1:7401")).contains(" 200 ");
  }

  @Test
  void aNameThatIsNotUtf8OrTooLongIsRefusedNamingTheParameter() throws Exception {
    HttpResponse<String> notUtf8 = get("/api/semaphore?name=%FF");
    assertThat(notUtf8.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(notUtf8.body()).get("message").asText()).startsWith("name:");
    int before = semafor.server().sessionCount();
    HttpResponse<String> tooLong =
        action("DELETE", "/api/semaphore?name=" + "x".repeat(2000), true);
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(tooLong.body()).get("message").asText()).startsWith("name:");
    assertThat(semafor.server().sessionCount()).isEqualTo(before); // no session was opened
  }
}
