package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.client.SemaforClient;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import io.semafor.server.security.Tokens;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console on a server with an auth file (docs/console.md#who-sees-what): the page loads for
 * anyone, its data only with a token; each principal sees the names it may read, and may change
 * only what its permissions allow; a refused action changes nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleSecurityTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<AuthFile.TokenEntry> entries = new ArrayList<>();
  private SemaforServer server;
  private SemaforClient ops;
  private String base;

  /** alice: read under a/; bob: read and admin under b/; ops: everything. */
  private String alice;

  private String bob;
  private String opsToken;

  /** carol and dave: read under a/, as alice. */
  private String carol;

  private String dave;
  private Path authFile;
  private List<AuthFile.Rule> rules;

  private String issue(String principal) {
    Tokens.Issued issued = Tokens.issue(principal, null, RANDOM);
    entries.add(issued.entry());
    return issued.token();
  }

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    alice = issue("alice");
    bob = issue("bob");
    opsToken = issue("ops");
    carol = issue("carol");
    dave = issue("dave");
    authFile = dir.resolve("auth.json");
    rules =
        List.of(
            new AuthFile.Rule("alice", "a/", List.of("read")),
            new AuthFile.Rule("carol", "a/", List.of("read")),
            new AuthFile.Rule("dave", "a/", List.of("read")),
            new AuthFile.Rule("bob", "b/", List.of("read", "admin")),
            new AuthFile.Rule("ops", "", List.of("read", "admin", "cluster")));
    Files.writeString(authFile, new AuthFile(entries, rules).toJson(), StandardCharsets.UTF_8);
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).adminPort(0).security(Security.of(authFile)).build());
    base = "http://127.0.0.1:" + server.adminAddress().getPort();
    ops =
        SemaforClient.builder()
            .addresses("127.0.0.1:" + server.address().getPort())
            .token(opsToken)
            .connect();
    ops.create("a/x", 1);
    ops.create("b/y", 2);
  }

  @AfterEach
  void stop() {
    if (ops != null) {
      ops.close();
    }
    server.close();
  }

  private HttpResponse<String> send(String method, String path, @Nullable String token)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .header("X-Semafor-Console", "1");
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String code(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body()).get("error").asText();
  }

  @Test
  void thePageLoadsWithoutATokenButItsDataDoesNot() throws Exception {
    assertThat(send("GET", "/", null).statusCode()).isEqualTo(200);
    HttpResponse<String> data = send("GET", "/api/semaphores", null);
    assertThat(data.statusCode()).isEqualTo(401);
    assertThat(code(data)).isEqualTo("UNAUTHENTICATED");
    assertThat(send("GET", "/api/semaphores", "not-a-token").statusCode()).isEqualTo(401);
  }

  @Test
  void eachPrincipalSeesOnlyTheNamesItMayRead() throws Exception {
    JsonNode page = JSON.readTree(send("GET", "/api/semaphores", alice).body());
    assertThat(page.get("semaphores")).hasSize(1);
    assertThat(page.get("semaphores").get(0).get("name").asText()).isEqualTo("a/x");
    HttpResponse<String> other = send("GET", "/api/semaphore?name=b/y", alice);
    assertThat(other.statusCode()).isEqualTo(403);
    assertThat(code(other)).isEqualTo("PERMISSION_DENIED");
    assertThat(JSON.readTree(send("GET", "/api/semaphores", opsToken).body()).get("semaphores"))
        .hasSize(2);
  }

  @Test
  void aPageNeverNamesASemaphoreThePrincipalMayNotRead() throws Exception {
    for (int i = 0; i < 5; i++) {
      ops.create("b/hidden-" + i, 1);
    }
    ops.create("c/z", 1);
    ops.create("a/y", 1);
    // one name a page: the page after a/x holds only hidden names until a/y
    JsonNode first = JSON.readTree(send("GET", "/api/semaphores?limit=1", alice).body());
    assertThat(first.get("semaphores").get(0).get("name").asText()).isEqualTo("a/x");
    assertThat(first.get("next").asText()).isEqualTo("a/x");
    JsonNode second = JSON.readTree(send("GET", "/api/semaphores?limit=1&after=a/x", alice).body());
    assertThat(second.get("semaphores").get(0).get("name").asText()).isEqualTo("a/y");
    JsonNode third = JSON.readTree(send("GET", "/api/semaphores?limit=1&after=a/y", alice).body());
    assertThat(third.get("semaphores")).isEmpty();
    assertThat(third.get("more").asBoolean()).isFalse();
    assertThat(first.toString() + second + third).doesNotContain("b/").doesNotContain("c/");
  }

  @Test
  void theNodeAndEverySessionNeedTheClusterPermission() throws Exception {
    assertThat(send("GET", "/api/node", alice).statusCode()).isEqualTo(403);
    assertThat(send("GET", "/api/node", opsToken).statusCode()).isEqualTo(200);
    JsonNode aliceSessions = JSON.readTree(send("GET", "/api/sessions", alice).body());
    assertThat(aliceSessions.get("sessions")).isEmpty(); // only her own, and she has none
    assertThat(aliceSessions.get("total").isNull()).isTrue(); // nor how many the node has
    JsonNode all = JSON.readTree(send("GET", "/api/sessions", opsToken).body());
    assertThat(all.get("sessions")).isNotEmpty();
  }

  @Test
  void anActionThePrincipalMayNotTakeIsRefusedAndChangesNothing() throws Exception {
    HttpResponse<String> delete = send("DELETE", "/api/semaphore?name=a/x", alice);
    assertThat(delete.statusCode()).isEqualTo(403);
    assertThat(code(delete)).isEqualTo("PERMISSION_DENIED");
    HttpResponse<String> set = send("POST", "/api/semaphore/value?name=a/x&value=9", bob);
    assertThat(set.statusCode()).isEqualTo(403);
    assertThat(ops.semaphore("a/x").value()).isEqualTo(1);
  }

  @Test
  void anActionThePrincipalMayTakeIsMadeInItsName() throws Exception {
    HttpResponse<String> set = send("POST", "/api/semaphore/value?name=b/y&value=9", bob);
    assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
    assertThat(ops.semaphore("b/y").value()).isEqualTo(9);
  }

  @Test
  void aStreamWithoutTheClusterPermissionSaysTheNodeIsHidden() throws Exception {
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/stream"))
                .header("Authorization", "Bearer " + alice)
                .header("X-Semafor-Console", "1")
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = r.body()) {
      assertThat(r.statusCode()).isEqualTo(200);
      StringBuilder seen = new StringBuilder();
      byte[] buffer = new byte[4096];
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!seen.toString().contains("\"denied\"") && System.nanoTime() < deadline) {
        int n = in.read(buffer);
        if (n < 0) {
          break;
        }
        seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
      }
      assertThat(seen.toString()).contains("event: node").contains("'cluster' is needed");
      assertThat(seen.toString()).contains("a/x").doesNotContain("b/y");
    }
  }

  @Test
  void aStreamWhoseTokenIsRevokedIsToldSoAndEnds() throws Exception {
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/stream"))
                .header("Authorization", "Bearer " + alice)
                .header("X-Semafor-Console", "1")
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = r.body()) {
      assertThat(r.statusCode()).isEqualTo(200);
      byte[] first = new byte[64];
      assertThat(in.read(first)).isPositive(); // the stream runs

      List<AuthFile.TokenEntry> withoutAlice = new ArrayList<>(entries.subList(1, entries.size()));
      Files.writeString(
          authFile, new AuthFile(withoutAlice, rules).toJson(), StandardCharsets.UTF_8);
      server.reloadAuth();

      String rest = new String(in.readAllBytes(), StandardCharsets.UTF_8); // to its end
      assertThat(rest).contains("\"code\":\"UNAUTHENTICATED\"").contains("revoked or expired");
    }
  }

  /**
   * Opens {@code /api/stream} as {@code token} on a socket of its own, as a browser would, and
   * returns the socket once the status line is read; null (the socket closed) if it was not 200.
   */
  private java.net.@Nullable Socket rawStream(String token) throws Exception {
    java.net.Socket socket =
        new java.net.Socket(server.adminAddress().getAddress(), server.adminAddress().getPort());
    socket.setSoTimeout(10_000);
    socket
        .getOutputStream()
        .write(
            ("GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + token
                    + "\r\nX-Semafor-Console: 1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    StringBuilder status = new StringBuilder();
    InputStream in = socket.getInputStream();
    for (int c = in.read(); c >= 0 && c != '\n' && status.length() < 200; c = in.read()) {
      status.append((char) c);
    }
    if (status.toString().startsWith("HTTP/1.1 200")) {
      return socket;
    }
    socket.close();
    return null;
  }

  /** Opens streams as {@code token} until one is refused (at most 20); returns the open ones. */
  private List<java.net.Socket> streamsUntilBusy(String token) throws Exception {
    List<java.net.Socket> open = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      java.net.Socket s = rawStream(token);
      if (s == null) {
        break;
      }
      open.add(s);
    }
    return open;
  }

  @Test
  void principalsWithFewRightsCannotCrowdTheOperatorOutOfTheConsole() throws Exception {
    List<java.net.Socket> all = new ArrayList<>();
    try {
      for (String token : List.of(alice, bob, carol, dave)) {
        all.addAll(streamsUntilBusy(token));
      }
      assertThat(all).as("principals without cluster share 12 of the 16 streams").hasSize(12);
      HttpResponse<String> refused = send("GET", "/api/stream", dave);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(JSON.readTree(refused.body()).get("message").asText())
          .contains("kept for principals with the 'cluster' permission");

      List<java.net.Socket> operator = streamsUntilBusy(opsToken);
      all.addAll(operator);
      assertThat(operator).as("the operator still gets the reserved streams").hasSize(4);
    } finally {
      for (java.net.Socket s : all) {
        s.close();
      }
    }
  }

  @Test
  void theStreamsOfPagesThatWentAwayAreFreeWithinSeconds() throws Exception {
    List<java.net.Socket> first = streamsUntilBusy(alice);
    assertThat(first).isNotEmpty();
    for (java.net.Socket s : first) {
      s.close(); // as when the browser's process dies
    }
    List<java.net.Socket> again = new ArrayList<>();
    try {
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(6))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                java.net.Socket s = rawStream(alice);
                if (s != null) {
                  again.add(s);
                }
                return again.size() == first.size();
              });
    } finally {
      for (java.net.Socket s : again) {
        s.close();
      }
    }
  }
}
