package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.SemaforClient;
import io.semafor.embedded.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Three cluster nodes as separate processes on 127.0.0.1 ({@link ClusterNodeProcess}), each with
 * its own data directory, log file and admin port, on the replicator {@link TestCluster#microRaft}
 * names: for what only a real process shows (SIGKILL, SIGSTOP, a JVM's own fsync). {@link #close}
 * kills every node by its PID, also after a failure; every wait is bounded.
 */
final class ProcessCluster implements AutoCloseable {
  private static final int SIZE = 3;

  private final Path dir;
  private final List<Process> nodes = new ArrayList<>();
  private final int[] admin = new int[SIZE];
  private final HttpClient http = HttpClient.newHttpClient();
  private final String addresses;
  private final List<String> clientAddresses = new ArrayList<>();
  private final String peers;

  private ProcessCluster(Path dir) {
    this.dir = dir;
    StringBuilder peerList = new StringBuilder();
    for (int i = 0; i < SIZE; i++) {
      int client = FreePorts.next();
      peerList
          .append(i == 0 ? "" : ",")
          .append("n")
          .append(i + 1)
          .append("=127.0.0.1:")
          .append(client)
          .append(':')
          .append(FreePorts.next());
      clientAddresses.add("127.0.0.1:" + client);
      admin[i] = FreePorts.next();
    }
    this.addresses = String.join(",", clientAddresses);
    this.peers = peerList.toString();
  }

  /** Starts three nodes under {@code dir} and waits for a leader (at most 30 s). */
  static ProcessCluster start(Path dir) throws IOException {
    ProcessCluster cluster = new ProcessCluster(dir);
    try {
      for (int i = 0; i < SIZE; i++) {
        cluster.nodes.add(cluster.startNode(i));
      }
      cluster.leader();
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** Every node's client address, comma-separated, as a client is given them. */
  String addresses() {
    return addresses;
  }

  /** Node {@code i}'s client address, {@code host:port}. */
  String clientAddress(int i) {
    return clientAddresses.get(i);
  }

  /** Node {@code i}'s process (replaced by {@link #restart}). */
  Process node(int i) {
    return nodes.get(i);
  }

  /** A client of every node with the given session TTL, generous timeouts for failovers. */
  SemaforClient client(String name, Duration sessionTtl) {
    return SemaforClient.builder()
        .addresses(addresses)
        .clientName(name)
        .sessionTtl(sessionTtl)
        .connectTimeout(Duration.ofSeconds(10))
        .giveUpAfter(Duration.ofSeconds(60))
        .answerTimeout(Duration.ofSeconds(60))
        .connect();
  }

  /** Starts node {@code i} again (its data directory is kept), its output appended to its log. */
  void restart(int i) throws IOException {
    nodes.set(i, startNode(i));
  }

  private Process startNode(int i) throws IOException {
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-D" + ClusterNodeProcess.REPLICATOR + "=" + TestCluster.replicator(),
            "-cp",
            System.getProperty("java.class.path"),
            ClusterNodeProcess.class.getName(),
            "n" + (i + 1),
            peers,
            dir.resolve("n" + (i + 1)).toString(),
            Integer.toString(admin[i]),
            "FSYNC")
        .redirectErrorStream(true)
        .redirectOutput(
            ProcessBuilder.Redirect.appendTo(dir.resolve("n" + (i + 1) + ".log").toFile()))
        .start();
  }

  /** The index of the leader, waiting at most 30 s for a live node to say it leads. */
  int leader() {
    return await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(this::leaderOrMinusOne, i -> i >= 0);
  }

  private int leaderOrMinusOne() throws InterruptedException {
    for (int i = 0; i < SIZE; i++) {
      try {
        String body = adminGet(i, "/health");
        if (nodes.get(i).isAlive() && body.contains("\"role\":\"leader\"")) {
          return i;
        }
      } catch (IOException e) {
        // not up, or gone
      }
    }
    return -1;
  }

  /** The body of node {@code i}'s admin endpoint {@code path}, waiting at most 2 s. */
  String adminGet(int i, String path) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin[i] + path))
                .timeout(Duration.ofSeconds(2))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** A number in node {@code i}'s {@code /cluster} status; -1 if it does not answer. */
  long clusterNumber(int i, String key) throws InterruptedException {
    try {
      String body = adminGet(i, "/cluster");
      var value = new com.fasterxml.jackson.databind.ObjectMapper().readTree(body).get(key);
      return value == null ? -1 : value.asLong();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Sends signal {@code name} ({@code STOP}, {@code CONT}, …) to {@code pid}. */
  static void signal(String name, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
    assertThat(kill.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }

  /** Kills every node by its PID (a frozen one too: SIGKILL needs no thaw). */
  @Override
  public void close() {
    for (Process p : nodes) {
      p.destroyForcibly();
    }
    for (Process p : nodes) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
