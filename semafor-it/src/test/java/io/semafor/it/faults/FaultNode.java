package io.semafor.it.faults;

import io.semafor.it.ClusterNodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One cluster node as its own JVM inside its host's network namespace ({@link TestNetwork}), which
 * the nemeses kill, stop, continue and restart. Its output goes to {@code node.log} in its
 * directory; its data directory survives a restart. Not thread-safe: the harness drives it.
 */
final class FaultNode implements AutoCloseable {
  static final int CLIENT_PORT = 7400;
  static final int RAFT_PORT = 7500;
  static final int ADMIN_PORT = 7401;

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  private final String id;
  private final TestNetwork.Host host;
  private final String peers;
  private final Path dir;
  private @Nullable Process process;
  private boolean stopped;

  /**
   * @param peers every member as {@code id=host:clientPort:raftPort}, comma-separated
   */
  FaultNode(String id, TestNetwork.Host host, String peers, Path dir) {
    this.id = id;
    this.host = host;
    this.peers = peers;
    this.dir = dir;
  }

  /** The member's entry in {@code --peers}. */
  static String peerEntry(String id, TestNetwork.Host host) {
    return id + "=" + host.address() + ":" + CLIENT_PORT + ":" + RAFT_PORT;
  }

  String id() {
    return id;
  }

  TestNetwork.Host host() {
    return host;
  }

  /** Where clients reach it. */
  String clientAddress() {
    return host.address() + ":" + CLIENT_PORT;
  }

  /** Starts the JVM (again, after {@link #kill}); its data directory is kept. */
  void start() {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(TestNetwork.in(host));
    command.addAll(
        List.of(
            java,
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2",
            "-cp",
            classpath,
            ClusterNodeProcess.class.getName(),
            id,
            peers,
            dir.resolve("data").toString(),
            Integer.toString(ADMIN_PORT),
            "REPLICATED"));
    try {
      Files.createDirectories(dir);
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("node.log").toFile()))
              .start();
      stopped = false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive() && !stopped;
  }

  /** kill -9, and waits until it is gone. */
  void kill() {
    Process p = process;
    if (p != null && p.isAlive()) {
      p.destroyForcibly();
      waitGone(p);
    }
    stopped = false;
  }

  /** SIGSTOP: the JVM freezes, its sockets stay open. */
  void pause() {
    signal("STOP");
    stopped = true;
  }

  /** SIGCONT after {@link #pause}. */
  void resume() {
    if (stopped) {
      signal("CONT");
      stopped = false;
    }
  }

  private void signal(String name) {
    Process p = process;
    if (p != null && p.isAlive()) {
      TestNetwork.run("kill", "-" + name, Long.toString(p.pid()));
    }
  }

  private static void waitGone(Process p) {
    try {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("node process " + p.pid() + " still alive after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The node's own view from its admin endpoint ({@code GET /cluster}, JSON); null if it does not
   * answer within half a second (down, stopped, or cut off from the harness).
   */
  @Nullable String status() {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://" + host.address() + ":" + ADMIN_PORT + "/cluster"))
                  .timeout(Duration.ofMillis(500))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Whether the node answers that it leads. */
  boolean saysItLeads() {
    String s = status();
    return s != null && s.contains("\"role\":\"leader\"");
  }

  /** Stops the process (continuing it first if stopped) and waits until it is gone. */
  @Override
  public void close() {
    Process p = process;
    if (p != null && p.isAlive()) {
      if (stopped) {
        signal("CONT");
      }
      p.destroyForcibly();
      waitGone(p);
    }
  }
}
