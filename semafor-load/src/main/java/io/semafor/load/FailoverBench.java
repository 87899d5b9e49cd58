package io.semafor.load;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Failover time of a 3-node cluster: starts three {@code semafor server} nodes as separate JVMs on
 * 127.0.0.1, then, trial after trial, kills the leader with SIGKILL and times how long until a
 * client's next increment succeeds on the new leader; restarts the killed node from its log and
 * waits until all three are healthy and agree on leader, term and applied index before the next
 * trial. Stops every node by PID at the end. Each trial prints the kill and served times (UTC) to
 * set against the nodes' logs (appended across restarts in the printed directory), where each new
 * leader logs "leads the group".
 *
 * <pre>
 * java -cp semafor-bench/target/benchmarks.jar io.semafor.load.FailoverBench \
 *     [--cli-jar semafor-cli/target/semafor.jar] [--trials 50] [--durability fsync|replicated]
 *     [--server-args "--election-timeout 300ms-600ms"]
 * </pre>
 */
public final class FailoverBench {
  private static final int[] CLIENT = {7640, 7650, 7660};
  private static final int[] RAFT = {7740, 7750, 7760};
  private static final int[] ADMIN = {7840, 7850, 7860};

  private FailoverBench() {}

  public static void main(String[] args) throws Exception {
    String cliJar = "semafor-cli/target/semafor.jar";
    int trials = 50;
    String durability = "fsync";
    List<String> serverArgs = List.of();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--cli-jar" -> cliJar = args[++i];
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--durability" -> durability = args[++i];
        case "--server-args" -> serverArgs = List.of(args[++i].trim().split("\\s+", -1));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Path dir = Files.createTempDirectory("semafor-failover");
    System.out.println("nodes' data and logs: " + dir);
    StringBuilder peers = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      peers
          .append(i == 0 ? "" : ",")
          .append("n")
          .append(i + 1)
          .append("=127.0.0.1:")
          .append(CLIENT[i])
          .append(':')
          .append(RAFT[i]);
    }
    Process[] nodes = new Process[3];
    Histogram millis = new Histogram(3);
    List<Long> all = new ArrayList<>();
    HttpClient http = HttpClient.newHttpClient();
    try {
      for (int i = 0; i < 3; i++) {
        nodes[i] = start(cliJar, i, peers.toString(), dir, durability, serverArgs);
      }
      awaitHealthy(http, 3);
      try (SemaforClient client =
          SemaforClient.builder()
              .addresses(
                  "127.0.0.1:" + CLIENT[0] + ",127.0.0.1:" + CLIENT[1] + ",127.0.0.1:" + CLIENT[2])
              .connectTimeout(Duration.ofSeconds(10))
              .giveUpAfter(Duration.ofSeconds(60))
              .sessionTtl(Duration.ofSeconds(30))
              .connect()) {
        NamedSemaphore counter = client.create("failover", 0);
        for (int t = 0; t < trials; t++) {
          counter.increment(1);
          int leader = leader(http);
          long t0 = System.nanoTime();
          LocalTime killedAt = LocalTime.now(ZoneOffset.UTC);
          nodes[leader].destroyForcibly(); // SIGKILL
          counter.increment(1); // blocks through the failover, then succeeds once
          long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
          LocalTime servedAt = LocalTime.now(ZoneOffset.UTC);
          millis.recordValue(ms);
          all.add(ms);
          System.out.printf(
              Locale.ROOT,
              "trial %d: leader n%d killed at %s, served again at %s: %d ms%n",
              t + 1,
              leader + 1,
              killedAt,
              servedAt,
              ms);
          nodes[leader].waitFor(10, TimeUnit.SECONDS);
          nodes[leader] = start(cliJar, leader, peers.toString(), dir, durability, serverArgs);
          awaitHealthy(http, 3);
        }
        System.out.printf(
            Locale.ROOT,
            "%nfailover over %d trials (%s): p50 %d ms, p95 %d ms, max %d ms; value %d%n",
            trials,
            durability,
            millis.getValueAtPercentile(50),
            millis.getValueAtPercentile(95),
            millis.getMaxValue(),
            counter.value());
        System.out.println("all: " + all);
      }
    } finally {
      for (Process p : nodes) {
        if (p != null) {
          p.destroyForcibly();
        }
      }
    }
  }

  private static Process start(
      String jar, int i, String peers, Path dir, String durability, List<String> serverArgs)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            Arrays.asList(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar,
                "server",
                "--node-id",
                "n" + (i + 1),
                "--peers",
                peers,
                "--data-dir",
                dir.resolve("n" + (i + 1)).toString(),
                "--admin-port",
                Integer.toString(ADMIN[i]),
                "--durability",
                durability));
    command.addAll(serverArgs);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(
            ProcessBuilder.Redirect.appendTo(dir.resolve("n" + (i + 1) + ".log").toFile()))
        .start();
  }

  private static int leader(HttpClient http) throws InterruptedException {
    for (int attempt = 0; attempt < 600; attempt++) {
      for (int i = 0; i < 3; i++) {
        if (health(http, i).contains("\"role\":\"leader\"")) {
          return i;
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no leader in 30 s");
  }

  private static void awaitHealthy(HttpClient http, int count) throws InterruptedException {
    for (int attempt = 0; attempt < 1200; attempt++) {
      int up = 0;
      for (int i = 0; i < 3; i++) {
        if (health(http, i).contains("UP")) {
          up++;
        }
      }
      if (up >= count) {
        leader(http);
        awaitInSync(http);
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the nodes did not come up in 60 s");
  }

  /**
   * Waits until every node follows the same leader in the same term and has applied the same index:
   * a trial starts from a whole cluster. (Up alone is not enough: a node just restarted can still
   * be terms behind, and its peers' connections to it in gRPC's reconnect back-off, so the next
   * failover would wait for them rather than for the election; seen in the logs.)
   */
  private static void awaitInSync(HttpClient http) throws InterruptedException {
    Pattern fields =
        Pattern.compile("\"leader\":\"(\\w*)\".*\"term\":(\\d+).*\"appliedIndex\":(\\d+)");
    for (int attempt = 0; attempt < 1200; attempt++) {
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        Matcher m = fields.matcher(get(http, i, "/cluster"));
        seen.add(m.find() ? m.group(1) + "/" + m.group(2) + "/" + m.group(3) : "?" + i);
      }
      if (seen.size() == 1) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the nodes did not agree on leader, term and index in 60 s");
  }

  private static String health(HttpClient http, int i) throws InterruptedException {
    return get(http, i, "/health");
  }

  private static String get(HttpClient http, int i, String path) throws InterruptedException {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ADMIN[i] + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "";
    }
  }
}
