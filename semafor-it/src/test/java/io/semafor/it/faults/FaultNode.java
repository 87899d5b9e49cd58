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

  /**
   * Entries between snapshots: a few per run, so that a follower back from a fault is often behind
   * the compacted log and is sent a snapshot, and faults strike during snapshots and installs.
   */
  static final long SNAPSHOT_EVERY = 400;

  /** Log segment size: segments close and new ones open within a run (a full disk then bites). */
  static final long SEGMENT_BYTES = 64 * 1024;

  /**
   * The replicator the nodes run: {@code -Dfaults.replicator}, else the tests' replicator ({@code
   * semafor.test.replicator}, MicroRaft by default, as the product's); every fault applies to
   * either (the disk faults find each replicator's own files).
   */
  static final String REPLICATOR =
      System.getProperty("faults.replicator", io.semafor.it.ClusterNodeProcess.testReplicator());

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  private final String id;
  private final TestNetwork.Host host;
  private final String peers;
  private final Path dir;
  private final String durability;
  private final boolean join;
  private final NodeDisk disk;
  private final NodeClock clock;
  private @Nullable Process process;
  private boolean stopped;

  /**
   * @param peers every member as {@code id=host:clientPort:raftPort}, comma-separated
   * @param durability {@code REPLICATED} or {@code FSYNC} (the cluster's durability mode)
   */
  FaultNode(String id, TestNetwork.Host host, String peers, Path dir, String durability) {
    this(id, host, peers, dir, durability, false);
  }

  private FaultNode(
      String id, TestNetwork.Host host, String peers, Path dir, String durability, boolean join) {
    this.id = id;
    this.host = host;
    this.peers = peers;
    this.dir = dir;
    this.durability = durability;
    this.join = join;
    this.disk = new NodeDisk(dir.resolve("data"));
    this.clock = new NodeClock(dir.resolve("clock"));
  }

  /** Its wall clock (libfaketime's settings file), for the clock nemeses. */
  NodeClock clock() {
    return clock;
  }

  /**
   * A new member in this node's place: another id, the same host, ports and directory, which must
   * be empty (this node {@link #close closed} first: its tmpfs, and so its data, is gone); it joins
   * the running cluster once added ({@code --join}).
   */
  FaultNode replacement(String newId) {
    return new FaultNode(newId, host, peerEntry(newId, host), dir, durability, true);
  }

  /** This node's entry for {@code semafor cluster add}: {@code id=host:clientPort:raftPort}. */
  String memberEntry() {
    return peerEntry(id, host);
  }

  /**
   * Asks this node to remove member {@code memberId} from the cluster ({@code DELETE
   * /cluster/members/ID}, what {@code semafor cluster remove} sends); null once the change
   * committed, else why not.
   */
  @Nullable String removeMember(String memberId) {
    return change(
        HttpRequest.newBuilder(adminUri("/cluster/members/" + memberId)).DELETE(), "remove");
  }

  /** Asks this node to add {@code entry} as a member ({@code semafor cluster add}); as above. */
  @Nullable String addMember(String entry) {
    return change(
        HttpRequest.newBuilder(adminUri("/cluster/members"))
            .POST(HttpRequest.BodyPublishers.ofString(entry)),
        "add");
  }

  private URI adminUri(String path) {
    return URI.create("http://" + host.address() + ":" + ADMIN_PORT + path);
  }

  private @Nullable String change(HttpRequest.Builder request, String what) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              // longer than the node's own 60 s for a change: its answer, not a timeout, is wanted
              request.timeout(Duration.ofSeconds(70)).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? null : what + " refused by " + id + ": " + r.body().strip();
    } catch (IOException e) {
      return what + " through " + id + " failed: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return what + " interrupted";
    }
  }

  /** Its data directory's disk (a tmpfs of its own), for the disk nemeses. */
  NodeDisk disk() {
    return disk;
  }

  /**
   * Writes the JVM's threads ({@code jcmd Thread.print}) and its namespace's TCP sockets ({@code ss
   * -tnio}) to {@code threads-TIME.txt} in its directory: what it was doing when a run found a
   * liveness failure. Does nothing if the JVM is not running; a command that fails leaves its error
   * in the file instead.
   */
  void dumpThreadsAndSockets() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    Path file =
        dir.resolve("threads-" + java.time.Instant.now().toString().replace(':', '-') + ".txt");
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    List<String> ss = new ArrayList<>(TestNetwork.in(host));
    ss.addAll(List.of("ss", "-tnio"));
    // straight to the file: a thread dump is larger than a pipe holds
    writeInto(file, List.of(jcmd, Long.toString(p.pid()), "Thread.print"));
    writeInto(file, ss);
    note("threads and sockets written to " + file.getFileName());
  }

  /** Runs {@code command}, its output appended to {@code file} after a line naming it. */
  private static void writeInto(Path file, List<String> command) {
    appendLine(file, "# " + String.join(" ", command));
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(file.toFile()))
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        appendLine(file, "(no answer in 30 s)");
      }
    } catch (IOException e) {
      appendLine(file, "(could not run: " + e + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The JVM's PID; 0 if it never started. */
  long pid() {
    Process p = process;
    return p == null ? 0 : p.pid();
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
    List<String> command =
        TestNetwork.javaIn(
            host,
            clock.envCommand(),
            List.of(
                "-Dlogback.configurationFile=fault-node-logback.xml",
                "-D" + ClusterNodeProcess.REPLICATOR + "=" + REPLICATOR),
            256,
            ClusterNodeProcess.class,
            List.of(
                id,
                peers,
                disk.dir().toString(),
                Integer.toString(ADMIN_PORT),
                durability,
                Long.toString(SNAPSHOT_EVERY),
                Long.toString(SEGMENT_BYTES),
                join ? "join" : "form"));
    Process running = process;
    if (running != null && running.isAlive()) {
      // two JVMs of one node would fight over its ports and data directory
      throw new IllegalStateException(id + " is already running as pid " + running.pid());
    }
    try {
      Files.createDirectories(dir);
      disk.mount();
      Process started =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("node.log").toFile()))
              .start();
      process = started;
      stopped = false;
      note("started pid " + started.pid());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Adds what the harness did to the node to its log, with the time, so that a node's log tells
   * which of its JVMs wrote what.
   */
  private void note(String what) {
    appendLine(
        dir.resolve("node.log"), "[harness] " + java.time.Instant.now() + " " + id + ": " + what);
  }

  /**
   * Appends {@code line} to {@code file} (a log the harness writes beside a run's own logs); a
   * failure is ignored, as such a line only helps reading the run.
   */
  static void appendLine(Path file, String line) {
    try {
      Files.writeString(
          file,
          line + "\n",
          java.nio.charset.StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      // the line only helps reading the run
    }
  }

  /** Whether its process has ended (or never started); a stopped one has not. */
  boolean hasExited() {
    Process p = process;
    return p == null || !p.isAlive();
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
      note("killed pid " + p.pid() + " (SIGKILL)");
    }
    stopped = false;
  }

  /**
   * Waits up to {@code within} for the process to end by itself; its exit status, or null if it is
   * still running (or never started).
   */
  @Nullable Integer awaitExit(Duration within) throws InterruptedException {
    Process p = process;
    if (p == null || !p.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
      return null;
    }
    note("pid " + p.pid() + " exited with status " + p.exitValue());
    return p.exitValue();
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
      note("SIG" + name + " to pid " + p.pid());
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

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** A number in the node's status ({@code commitIndex}, {@code appliedIndex}); -1 if unknown. */
  long statusNumber(String key) {
    String s = status();
    if (s == null) {
      return -1;
    }
    try {
      com.fasterxml.jackson.databind.JsonNode value = JSON.readTree(s).get(key);
      return value != null && value.isNumber() ? value.asLong() : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** A text field of the node's {@code /cluster} status; null if it does not answer or has none. */
  @Nullable String statusText(String key) {
    String s = status();
    if (s == null) {
      return null;
    }
    try {
      com.fasterxml.jackson.databind.JsonNode value = JSON.readTree(s).get(key);
      return value != null && value.isTextual() ? value.asText() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * The leader's view of the follower {@code id} ({@code matchIndex}, {@code nextIndex}, {@code
   * silentMillis}) as text, or why there is none: for saying why a node did not catch up.
   */
  String followerView(String id) {
    String s = status();
    if (s == null) {
      return this.id + " does not answer";
    }
    try {
      com.fasterxml.jackson.databind.JsonNode followers = JSON.readTree(s).get("followers");
      if (followers == null) {
        return this.id + " does not lead";
      }
      for (com.fasterxml.jackson.databind.JsonNode f : followers) {
        if (id.equals(f.path("id").asText())) {
          return this.id + " sees " + f;
        }
      }
      return this.id + " has no appender for " + id;
    } catch (IOException e) {
      return this.id + " answered no JSON";
    }
  }

  /** Whether the node answers that it leads. */
  boolean saysItLeads() {
    String s = status();
    return s != null && s.contains("\"role\":\"leader\"");
  }

  /**
   * Stops the process (continuing it first if stopped), waits until it is gone, and unmounts its
   * disk (the data goes with it: a run's logs stay, its data does not).
   */
  @Override
  public void close() {
    disk.untrace();
    Process p = process;
    if (p != null && p.isAlive()) {
      if (stopped) {
        signal("CONT");
      }
      p.destroyForcibly();
      waitGone(p);
    }
    disk.close();
  }
}
