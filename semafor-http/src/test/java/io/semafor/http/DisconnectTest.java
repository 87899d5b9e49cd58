package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A caller that closes its connection while its long poll waits withdraws the wait, and a grant it
 * never received goes back (docs/http.md "What a disconnect does"; decision 0049's rule through the
 * gateway).
 */
class DisconnectTest {
  static EmbeddedSemafor semafor;
  static HttpGateway gateway;
  static Api api;

  @BeforeAll
  static void start() throws InterruptedException {
    semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
    gateway = HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null);
    api = new Api(gateway.baseUrl());
  }

  @AfterAll
  static void stop() {
    gateway.close();
    semafor.close();
  }

  /** Sends a request on a raw socket and returns the socket without reading the answer. */
  private static Socket send(String method, String path, String json) throws IOException {
    return send(gateway, method, path, json);
  }

  private static Socket send(HttpGateway to, String method, String path, String json)
      throws IOException {
    Socket s = new Socket(java.net.InetAddress.getLoopbackAddress(), to.address().getPort());
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    OutputStream out = s.getOutputStream();
    out.write(
        (method
                + " "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    return s;
  }

  private static com.fasterxml.jackson.databind.JsonNode status(String name) {
    return api.get("/v1/semaphores/" + name).body();
  }

  private static void awaitWaiters(String name, int n) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> status(name).path("waiters").asInt() == n);
  }

  @Test
  void closingTheConnectionWithdrawsTheWaitAndALaterGrantStaysFree() throws Exception {
    api.put("/v1/semaphores/dc-a", "{\"initial\": 0}");
    Socket caller =
        send("POST", "/v1/semaphores/dc-a/leases", "{\"ttl_ms\": 60000, \"timeout_ms\": 60000}");
    awaitWaiters("dc-a", 1);
    caller.close();
    awaitWaiters("dc-a", 0);
    api.post("/v1/semaphores/dc-a/increment", "{\"amount\": 1}");
    assertThat(status("dc-a").path("value").asLong()).isEqualTo(1);
    assertThat(status("dc-a").path("leased").asLong()).isZero();
  }

  @Test
  void aGrantRacingTheDisconnectGoesBackEveryTime() throws Exception {
    int rounds = 20;
    for (int i = 0; i < rounds; i++) {
      String lease = "dc-lease-" + i;
      String taken = "dc-dec-" + i;
      api.put("/v1/semaphores/" + lease, "{\"initial\": 0}");
      api.put("/v1/semaphores/" + taken, "{\"initial\": 0}");
      Socket a =
          send(
              "POST",
              "/v1/semaphores/" + lease + "/leases",
              "{\"ttl_ms\": 600000, \"timeout_ms\": 60000}");
      Socket b = send("POST", "/v1/semaphores/" + taken + "/decrement", "{\"timeout_ms\": 60000}");
      awaitWaiters(lease, 1);
      awaitWaiters(taken, 1);
      // the grant races the gateway's noticing the close: withdrawn first, or granted to a
      // caller that left and given back; either way the permit must come back
      a.close();
      b.close();
      api.post("/v1/semaphores/" + lease + "/increment", "{\"amount\": 1}");
      api.post("/v1/semaphores/" + taken + "/increment", "{\"amount\": 1}");
    }
    for (int i = 0; i < rounds; i++) {
      String lease = "dc-lease-" + i;
      String taken = "dc-dec-" + i;
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                var l = status(lease);
                assertThat(l.path("waiters").asInt()).isZero();
                assertThat(l.path("leased").asLong() + l.path("undelivered").asLong()).isZero();
                assertThat(l.path("value").asLong()).isEqualTo(1);
                var t = status(taken);
                assertThat(t.path("waiters").asInt()).isZero();
                assertThat(t.path("value").asLong()).isEqualTo(1);
              });
    }
  }

  @Test
  void longPollsPerPrincipalAreBounded() throws Exception {
    api.put("/v1/semaphores/dc-d", "{\"initial\": 0}");
    try (HttpGateway two =
        HttpGateway.start(
            semafor.server(), HttpConfig.DEFAULTS.withPort(0).withMaxWaitsPerPrincipal(2), null)) {
      Api limited = new Api(two.baseUrl());
      Socket a = send(two, "POST", "/v1/semaphores/dc-d/decrement", "{\"timeout_ms\": 60000}");
      Socket b = send(two, "POST", "/v1/semaphores/dc-d/decrement", "{\"timeout_ms\": 60000}");
      awaitWaiters("dc-d", 2);
      Api.Answer third = limited.post("/v1/semaphores/dc-d/decrement", "{\"timeout_ms\": 60000}");
      assertThat(third.status()).isEqualTo(429);
      assertThat(third.code()).isEqualTo("RESOURCE_EXHAUSTED");
      a.close();
      b.close();
      awaitWaiters("dc-d", 0);
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  limited.post("/v1/semaphores/dc-d/decrement", "{\"timeout_ms\": 10}").status()
                      == 200);
    }
  }

  @Test
  void closingTheApiAnswersItsLongPolls503AndWithdrawsThem() throws Exception {
    api.put("/v1/semaphores/dc-e", "{\"initial\": 0}");
    HttpGateway closing =
        HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null);
    Api other = new Api(closing.baseUrl());
    var waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
                other.post(
                    "/v1/semaphores/dc-e/leases", "{\"ttl_ms\": 5000, \"timeout_ms\": 60000}"));
    awaitWaiters("dc-e", 1);
    closing.close();
    Api.Answer answer = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(answer.status()).isEqualTo(503);
    assertThat(answer.code()).isEqualTo("UNAVAILABLE");
    awaitWaiters("dc-e", 0);
    api.post("/v1/semaphores/dc-e/increment", "{\"amount\": 1}");
    assertThat(status("dc-e").path("value").asLong()).isEqualTo(1);
  }
}
