package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.SemaphoreOptions;
import io.semafor.cli.CliProcess.Finished;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.protocol.Frames;
import io.semafor.server.BuildInfo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code semafor} command run as a separate process against a real server on 127.0.0.1. */
class CliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient client = semafor.client();
  private final String server = semafor.address();

  @AfterEach
  void stop() {
    semafor.close();
  }

  private Finished semafor(String... args) throws Exception {
    return CliProcess.run(server, args);
  }

  @Test
  void createIncDecAndGetPrintPlainAnswersAndExitZero() throws Exception {
    assertThat(semafor("create", "printers", "3")).extracting(Finished::status).isEqualTo(0);
    assertThat(semafor("inc", "printers", "2").out()).isEqualTo("5");
    assertThat(semafor("dec", "printers", "4").out()).isEqualTo("4");
    Finished get = semafor("get", "printers");
    assertThat(get.status()).isZero();
    assertThat(get.out()).isEqualTo("1");
  }

  @Test
  void theAmountDefaultsToOneAndTheInitialValueToZero() throws Exception {
    assertThat(semafor("create", "x").status()).isZero();
    assertThat(semafor("inc", "x").out()).isEqualTo("1");
    assertThat(semafor("acquire", "x").status()).isZero();
    assertThat(client.semaphore("x").value()).isZero();
  }

  @Test
  void jsonPrintsOneObjectWithTheFields() throws Exception {
    semafor("create", "printers", "3", "--capacity", "5", "--policy", "barging");
    Finished get = semafor("get", "printers", "--json");
    JsonNode node = JSON.readTree(get.out());
    assertThat(get.out().lines().count()).isEqualTo(1);
    assertThat(node.get("name").asText()).isEqualTo("printers");
    assertThat(node.get("value").asLong()).isEqualTo(3);
    assertThat(node.get("options").get("capacity").asLong()).isEqualTo(5);
    assertThat(node.get("options").get("policy").asText()).isEqualTo("barging");
  }

  @Test
  void aFailedOperationExitsOneAndNamesTheErrorCode() throws Exception {
    Finished missing = semafor("get", "nothing");
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err()).contains("NOT_FOUND");
    Finished json = semafor("get", "nothing", "--json");
    assertThat(JSON.readTree(json.out()).get("error").asText()).isEqualTo("NOT_FOUND");
  }

  @Test
  void aUsageErrorExitsTwoAndChangesNothing() throws Exception {
    client.create("x", 1);
    Finished badDuration = semafor("dec", "x", "--timeout", "soon");
    assertThat(badDuration.status()).isEqualTo(2);
    assertThat(badDuration.err()).contains("not a duration");
    assertThat(semafor("inc").status()).isEqualTo(2);
    assertThat(client.semaphore("x").value()).isEqualTo(1);
  }

  @Test
  void theServerComesFromSemaforServerInTheEnvironmentAndAnOptionWins() throws Exception {
    client.create("x", 5);
    Finished fromEnvironment =
        CliProcess.runWithEnvironment(java.util.Map.of("SEMAFOR_SERVER", server), "get", "x");
    assertThat(fromEnvironment.status()).isZero();
    assertThat(fromEnvironment.out().strip()).isEqualTo("5");
    Finished optionWins =
        CliProcess.runWithEnvironment(
            java.util.Map.of("SEMAFOR_SERVER", "garbage"), "get", "x", "--server", server);
    assertThat(optionWins.status()).isZero();
  }

  @Test
  void aMalformedServerAddressIsAUsageErrorInOneLine() throws Exception {
    Finished f = CliProcess.run("garbage", "get", "x");
    assertThat(f.status()).isEqualTo(2);
    assertThat(f.err().strip()).isEqualTo("semafor: --server: address not host:port: garbage");
  }

  @Test
  void aServerOnAPortInUseSaysSoInOneLine() throws Exception {
    int busy = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
    Finished f =
        CliProcess.runRaw(
            "server", "--port", Integer.toString(busy), "--http-port", "-1", "--admin-port", "-1");
    assertThat(f.status()).isEqualTo(1);
    assertThat(f.err().strip())
        .isEqualTo(
            "semafor server: cannot listen on 127.0.0.1:"
                + busy
                + " (--port): Address already in use");
  }

  @Test
  void aServerWhoseAdminPortIsInUseNamesThatPortAndItsOption() throws Exception {
    int free;
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      free = probe.getLocalPort();
    }
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int busy = taken.getLocalPort();
      Finished f =
          CliProcess.runRaw(
              "server",
              "--port",
              Integer.toString(free),
              "--http-port",
              "-1",
              "--admin-port",
              Integer.toString(busy));
      assertThat(f.status()).isEqualTo(1);
      assertThat(f.err().strip().lines())
          .singleElement()
          .isEqualTo(
              "semafor server: cannot listen on 127.0.0.1:"
                  + busy
                  + " (--admin-port): Address already in use");
    }
  }

  @Test
  void aServerWhoseHttpPortIsInUseNamesThatPortAndItsOption() throws Exception {
    int free;
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      free = probe.getLocalPort();
    }
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int busy = taken.getLocalPort();
      Finished f =
          CliProcess.runRaw(
              "server",
              "--port",
              Integer.toString(free),
              "--admin-port",
              "-1",
              "--http-port",
              Integer.toString(busy));
      assertThat(f.status()).isEqualTo(1);
      // the client port listened (and its log lines say so) before the HTTP port was tried; the
      // error is the last line, and the client port is closed again
      assertThat(f.err().strip().lines().reduce((a, b) -> b).orElse(""))
          .isEqualTo(
              "semafor server: cannot listen on 127.0.0.1:"
                  + busy
                  + " (--http-port): Address already in use");
    }
  }

  @Test
  void aServerPrintsWhereItsHttpApiListens() throws Exception {
    Path log = Files.createTempFile("semafor-http-server", ".log");
    Process server =
        CliProcess.startRaw(log, "server", "--port", "0", "--admin-port", "-1", "--http-port", "0");
    try {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> Files.readString(log).contains("semafor http api on http://127.0.0.1:"));
      String line =
          Files.readString(log)
              .lines()
              .filter(l -> l.startsWith("semafor http api on "))
              .findFirst()
              .orElseThrow();
      String base = line.substring("semafor http api on ".length(), line.indexOf("/v1/"));
      java.net.http.HttpResponse<String> r =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(base + "/v1/semaphores/nothing"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).contains("\"code\":\"NOT_FOUND\"");
    } finally {
      server.destroy();
      if (!server.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
      Files.deleteIfExists(log);
    }
  }

  @Test
  void versionPrintsTheBuildsVersionAndTheProtocol() throws Exception {
    Finished f = CliProcess.runRaw("--version");
    assertThat(f.status()).isZero();
    assertThat(f.out().lines())
        .containsExactly(
            "semafor " + BuildInfo.describe(), "wire protocol " + Frames.PROTOCOL_VERSION);
    assertThat(f.out().lines().findFirst().orElseThrow())
        .matches("semafor \\d+\\.\\d+\\.\\d+\\S*( \\(commit [0-9a-f]{12}\\))?");
  }

  @Test
  void noServerExitsThree() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Finished f = CliProcess.run("127.0.0.1:" + closedPort, "get", "x");
    assertThat(f.status()).isEqualTo(3);
    assertThat(f.err()).contains("cannot reach");
  }

  @Test
  void anAcquireThatTimesOutExitsSeventyFiveAndTakesNothing() throws Exception {
    client.create("x", 1);
    Finished f = semafor("acquire", "x", "2", "--timeout", "200ms");
    assertThat(f.status()).isEqualTo(75);
    assertThat(client.semaphore("x").value()).isEqualTo(1);
  }

  @Test
  void aTimeoutIsReportedOnStandardErrorAndLeavesStandardOutputToResults() throws Exception {
    client.create("x", 0);
    Finished acquire = semafor("acquire", "x", "--timeout", "200ms");
    assertThat(acquire.out()).isEmpty();
    assertThat(acquire.err())
        .isEqualTo("semafor: TIMED_OUT: acquire x: 1 not free within 200ms; nothing taken");
    Finished dec = semafor("dec", "x", "--timeout", "1s");
    assertThat(dec.out()).as("the amount granted").isEqualTo("0");
    assertThat(dec.err()).isEqualTo("semafor: TIMED_OUT: dec x: still 0 after 1s");
    Finished json = semafor("wait-zero", "x", "--timeout", "0", "--json");
    assertThat(json.err()).isEmpty();
  }

  @Test
  void everyUsageErrorIsOneLineAndAPointerToHelpNotTheWholeUsage() throws Exception {
    for (String[] args :
        List.of(
            new String[] {"dec", "x", "--timeout", "soon"},
            new String[] {"get"},
            new String[] {"acquire", "x", "--no-such-option"},
            new String[] {"nosuch"})) {
      Finished f = semafor(args);
      assertThat(f.status()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(f.err()).doesNotContain("Usage:").doesNotContain("\tat ");
      assertThat(f.err().lines().reduce((first, second) -> second))
          .as(String.join(" ", args))
          .hasValueSatisfying(last -> assertThat(last).endsWith("--help' for more information."));
    }
  }

  @Test
  void debugIsAcceptedByEverySubcommand() throws Exception {
    client.create("x", 4);
    Finished f = semafor("get", "x", "--debug");
    assertThat(f.status()).isZero();
    assertThat(f.out()).isEqualTo("4");
  }

  @Test
  void aPlainAcquireConsumesThePermits() throws Exception {
    client.create("x", 3);
    assertThat(semafor("acquire", "x", "2").status()).isZero();
    assertThat(client.semaphore("x").value()).isEqualTo(1);
  }

  @Test
  void runReturnsTheCommandsStatusAndHoldsThePermitsMeanwhile(@TempDir Path dir) throws Exception {
    client.create("lock", 1);
    Path seen = dir.resolve("seen");
    Finished f = semafor("run", "lock", "--", "sh", "-c", "echo held > " + seen + "; exit 7");
    assertThat(f.status()).isEqualTo(7);
    assertThat(Files.readString(seen).strip()).isEqualTo("held");
    assertThat(client.semaphore("lock").value()).as("released after the command").isEqualTo(1);
  }

  @Test
  void runSeesThePermitHeldWhileTheCommandRuns(@TempDir Path dir) throws Exception {
    client.create("lock", 1);
    Path value = dir.resolve("value");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Finished f =
        semafor(
            "run",
            "lock",
            "--",
            "sh",
            "-c",
            "'"
                + java
                + "' -cp '"
                + System.getProperty("java.class.path")
                + "' "
                + Main.class.getName()
                + " get lock --server "
                + server
                + " > "
                + value);
    assertThat(f.status()).isZero();
    assertThat(Files.readString(value).strip()).isEqualTo("0");
  }

  @Test
  void runThatCannotGetThePermitsExitsSeventyFiveWithoutRunning(@TempDir Path dir)
      throws Exception {
    client.create("lock", 0);
    Path ran = dir.resolve("ran");
    Finished f = semafor("run", "lock", "--timeout", "200ms", "--", "sh", "-c", "touch " + ran);
    assertThat(f.status()).isEqualTo(75);
    assertThat(ran).doesNotExist();
  }

  @Test
  void acquireHoldIsReleasedAfterTheTtlWhenTheCliIsKilled() throws Exception {
    client.create("x", 2);
    Process holder = CliProcess.start(server, "acquire", "x", "2", "--hold", "--session-ttl", "1s");
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).startsWith("holding 2 of x");
      NamedSemaphore x = client.semaphore("x");
      assertThat(x.value()).isZero();
      holder.destroyForcibly(); // SIGKILL: no shutdown hook, the session just goes silent
      assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(3)).until(() -> x.value() == 2);
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void aLeaseOutlivesTheCliAndIsReleasedByIdFromAnotherProcess() throws Exception {
    client.create("x", 1);
    Finished lease = semafor("acquire", "x", "--lease", "30s", "--json");
    assertThat(lease.status()).isZero();
    long permitId = JSON.readTree(lease.out()).get("permitId").asLong();
    assertThat(client.semaphore("x").value()).isZero();
    assertThat(semafor("renew", Long.toString(permitId), "60s").status()).isZero();
    assertThat(semafor("release", Long.toString(permitId)).status()).isZero();
    assertThat(client.semaphore("x").value()).isEqualTo(1);
    assertThat(semafor("release", Long.toString(permitId)).status()).isEqualTo(1);
  }

  @Test
  void semopTakesAllOrNothing() throws Exception {
    client.create("a", 1);
    client.create("b", 0);
    Finished blocked = semafor("semop", "a:-1", "b:-1", "--nowait");
    assertThat(blocked.status()).isEqualTo(1);
    assertThat(blocked.err()).contains("WOULD_BLOCK");
    assertThat(client.semaphore("a").value()).isEqualTo(1);
    client.semaphore("b").increment(1);
    assertThat(semafor("semop", "a:-1", "b:-1").status()).isZero();
    assertThat(client.semaphore("a").value()).isZero();
    assertThat(client.semaphore("b").value()).isZero();
  }

  @Test
  void waitZeroReturnsWhenTheValueIsZeroAndTimesOutOtherwise() throws Exception {
    client.create("x", 1);
    assertThat(semafor("wait-zero", "x", "--timeout", "200ms").status()).isEqualTo(75);
    client.semaphore("x").set(0);
    assertThat(semafor("wait-zero", "x").status()).isZero();
  }

  @Test
  void listPrintsTheNamesWithThePrefixInOrder() throws Exception {
    client.create("jobs/b", 0);
    client.create("jobs/a", 0);
    client.create("other", 0);
    assertThat(semafor("list", "jobs/", "--names").out()).isEqualTo("jobs/a\njobs/b");
  }

  @Test
  void listPrintsATableOfEachSemaphoresValueCapacityAndCounts() throws Exception {
    client.create("jobs/a", 2, SemaphoreOptions.DEFAULT.capacity(3));
    client.create("jobs/b", 0);
    client.semaphore("jobs/a").acquirePermit(1);
    assertThat(semafor("list", "jobs/").out())
        .isEqualTo(
            """
            NAME    VALUE  CAPACITY  WAITERS  HOLDERS  LEASES
            jobs/a      1         3        0        1       0
            jobs/b      0         -        0        0       0""");
    JsonNode first =
        JSON.readTree(semafor("list", "jobs/", "--json").out()).get("semaphores").get(0);
    assertThat(first.get("name").asText()).isEqualTo("jobs/a");
    assertThat(first.get("holders").asInt()).isEqualTo(1);
  }

  @Test
  void inspectShowsTheQueueAndTheHolders() throws Exception {
    NamedSemaphore x = client.create("x", 1);
    SemaforClient other = semafor.newClient();
    other.semaphore("x").acquirePermit(1);
    var waiting = x.acquireAsync(1, Duration.ofMinutes(1));
    await().until(() -> x.info().waiters() == 1);
    assertThat(waiting).isNotDone();
    JsonNode node = JSON.readTree(semafor("inspect", "x", "--json").out());
    assertThat(node.get("queue")).hasSize(1);
    assertThat(node.get("queue").get(0).get("sessionId").asLong()).isEqualTo(client.sessionId());
    assertThat(node.get("holders").get(0).get("sessionId").asLong()).isEqualTo(other.sessionId());
    assertThat(node.get("holders").get(0).get("client").get("pid").asLong())
        .isEqualTo(ProcessHandle.current().pid());
    assertThat(semafor("inspect", "x").out())
        .contains("queue (1)")
        .contains("holders (1)")
        .contains(
            "session "
                + other.sessionId()
                + " (embedded on "
                + io.semafor.client.internal.LocalHost.name()
                + ", pid "
                + ProcessHandle.current().pid()
                + ") owns 1");
  }

  @Test
  void inspectFollowsThePagesOfAQueueLongerThanAFrame() throws Exception {
    // 40,000 waiters: ten pages of 4,096, and in one answer past the 1 MiB frame limit
    int queued = 40_000;
    client.create("x", 0);
    List<SemaforClient> clients = new ArrayList<>();
    List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
    for (int i = 0; i < queued; i++) {
      if (i % 4_000 == 0) { // a session may queue 4,096
        SemaforClient next = semafor.newClient();
        // One read's round trip first: a request sent the instant Welcome arrives can still be
        // refused with its connection (issue 11's first defect, fixed apart from this test).
        next.semaphore("x").info();
        clients.add(next);
      }
      NamedSemaphore x = clients.get(clients.size() - 1).semaphore("x");
      waiting.add(x.acquireAsync(1, Duration.ofMinutes(5)));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.semaphore("x").info().waiters() == queued);

    JsonNode all = JSON.readTree(semafor("inspect", "x", "--json").out());
    Finished text = semafor("inspect", "x");
    Finished limited = semafor("inspect", "x", "--limit", "3");

    assertThat(all.get("queue")).hasSize(queued);
    assertThat(all.get("counts").get("waiters").asInt()).isEqualTo(queued);
    long previous = 0;
    for (JsonNode waiter : all.get("queue")) {
      assertThat(waiter.get("sequence").asLong()).isGreaterThan(previous);
      previous = waiter.get("sequence").asLong();
    }
    assertThat(text.out()).contains("queue (40000):");
    assertThat(text.out().lines().filter(line -> line.startsWith("  #")).count()).isEqualTo(queued);
    assertThat(limited.out().lines().filter(line -> line.startsWith("  #")).count()).isEqualTo(3);
    assertThat(limited.out()).contains("... and 39997 more");
    assertThat(waiting).noneMatch(CompletableFuture::isDone);
  }

  @Test
  void clusterStatusReadsEveryNodesAdminEndpoint() throws Exception {
    try (EmbeddedSemafor node =
        EmbeddedSemafor.start(io.semafor.server.ServerConfig.builder().port(0).adminPort(0))) {
      int adminPort = java.util.Objects.requireNonNull(node.server().adminAddress()).getPort();
      Finished status =
          CliProcess.runRaw("cluster", "status", "--admin", "127.0.0.1:" + adminPort, "--json");
      assertThat(status.status()).isZero();
      JsonNode member = JSON.readTree(status.out()).get("members").get(0);
      assertThat(member.get("role").asText()).isEqualTo("leader");
      assertThat(member.get("mode").asText()).isEqualTo("single");
    }
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    assertThat(
            CliProcess.runRaw("cluster", "status", "--admin", "127.0.0.1:" + closedPort).status())
        .isEqualTo(3);
  }

  @Test
  void clusterStatusExitsThreeNamingEachMemberThatDoesNotAnswer() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (EmbeddedSemafor node =
        EmbeddedSemafor.start(io.semafor.server.ServerConfig.builder().port(0).adminPort(0))) {
      int adminPort = java.util.Objects.requireNonNull(node.server().adminAddress()).getPort();
      String up = "127.0.0.1:" + adminPort;
      String down = "127.0.0.1:" + closedPort;
      Finished status = CliProcess.runRaw("cluster", "status", "--admin", up + "," + down);
      assertThat(status.status()).isEqualTo(ExitCodes.UNREACHABLE);
      assertThat(status.err().lines())
          .singleElement()
          .asString()
          .startsWith("semafor: " + down + ": UNAVAILABLE: no answer from its admin endpoint");
      List<String> table = status.out().lines().toList();
      assertThat(table).hasSize(3);
      assertThat(table.get(1)).startsWith(up).contains("leader");
      assertThat(table.get(2)).startsWith(down).contains("unreachable");
      // aligned: every row's role starts where the header's ROLE does
      int role = table.get(0).indexOf("ROLE");
      assertThat(table.get(1).indexOf("leader")).isEqualTo(role);
      assertThat(table.get(2).indexOf("unreachable")).isEqualTo(role);
    }
  }

  @Test
  void clusterAddOnASingleNodeSaysItIsNotAClusterAndChangesNothing() throws Exception {
    try (EmbeddedSemafor node =
        EmbeddedSemafor.start(io.semafor.server.ServerConfig.builder().port(0).adminPort(0))) {
      String admin =
          "127.0.0.1:" + java.util.Objects.requireNonNull(node.server().adminAddress()).getPort();
      Finished add =
          CliProcess.runRaw("cluster", "add", "n4=127.0.0.1:7630:7730", "--admin", admin, "--json");
      assertThat(add.status()).isEqualTo(1);
      assertThat(JSON.readTree(add.out()).get("error").asText()).isEqualTo("NOT_A_CLUSTER");
      Finished remove = CliProcess.runRaw("cluster", "remove", "n1", "--admin", admin);
      assertThat(remove.status()).isEqualTo(1);
      assertThat(remove.err()).contains("NOT_A_CLUSTER");
    }
  }

  @Test
  void watchPrintsTheStateAndThenEachChange() throws Exception {
    NamedSemaphore x = client.create("x", 1);
    Process watch = CliProcess.start(server, "watch", "x", "--json", "--changes", "3");
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8));
      assertThat(JSON.readTree(out.readLine()).get("value").asLong()).isEqualTo(1);
      x.increment(1);
      assertThat(JSON.readTree(out.readLine()).get("value").asLong()).isEqualTo(2);
      x.set(7);
      assertThat(JSON.readTree(out.readLine()).get("value").asLong()).isEqualTo(7);
      assertThat(watch.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(watch.exitValue()).isZero();
    } finally {
      watch.destroyForcibly();
    }
  }

  @Test
  void watchWithPrefixPrintsEveryChangeUnderItAndDeletions() throws Exception {
    client.create("printers/a", 1);
    Process watch =
        CliProcess.start(server, "watch", "printers/", "--prefix", "--json", "--changes", "4");
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8));
      assertThat(JSON.readTree(out.readLine()).get("name").asText()).isEqualTo("printers/a");
      client.create("scanners/x", 1); // not under the prefix: not printed
      client.create("printers/b", 5);
      var created = JSON.readTree(out.readLine());
      assertThat(created.get("name").asText()).isEqualTo("printers/b");
      assertThat(created.get("value").asLong()).isEqualTo(5);
      client.semaphore("printers/a").increment(2);
      assertThat(JSON.readTree(out.readLine()).get("value").asLong()).isEqualTo(3);
      client.semaphore("printers/b").delete();
      var deleted = JSON.readTree(out.readLine());
      assertThat(deleted.get("name").asText()).isEqualTo("printers/b");
      assertThat(deleted.get("deleted").asBoolean()).isTrue();
      assertThat(watch.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(watch.exitValue()).isZero();
    } finally {
      watch.destroyForcibly();
    }
  }
}
