package io.semafor.load;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The load generator of docs/benchmarks.md: W1 (uncontended), W2 (contended), W3 (handoff) and the
 * raw TCP echo floor, each client on its own connection in a closed loop.
 *
 * <pre>
 * java -cp semafor-bench/target/benchmarks.jar io.semafor.load.LoadGenerator \
 *     [--server host:port] [--tls-ca CA.pem] [--token-file FILE] [--server-jar semafor-server/target/semafor-server.jar] \
 *     [--workloads echo,W1,W2,W3,echo-idle] [--clients 1,16,64] [--duration 10s] [--warmup 3s] \
 *     [--rounds N] [--json]
 * </pre>
 *
 * With {@code --rounds N} every cell (workload × clients) runs N times, the cells interleaved round
 * by round so that a slow spell of the machine hits all of them alike, and a summary gives each
 * cell's median with its range, and each workload's pairs/s as a ratio to the echo floor of the
 * same round and client count.
 *
 * <p>Without {@code --server} it starts a server from {@code --server-jar} in a separate JVM; the
 * echo server also runs in its own JVM. Both are stopped, by PID, before it exits.
 */
public final class LoadGenerator {
  private LoadGenerator() {}

  public static void main(String[] args) throws Exception {
    String server = null;
    String serverJar = "semafor-server/target/semafor-server.jar";
    List<String> workloads = List.of("echo", "W1", "W2", "W3", "echo-idle");
    List<Integer> clients = List.of(1, 16, 64);
    Duration duration = Duration.ofSeconds(10);
    Duration warmup = Duration.ofSeconds(3);
    boolean json = false;
    int rounds = 1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--server" -> server = args[++i];
        case "--server-jar" -> serverJar = args[++i];
        case "--tls-ca" ->
            Workloads.tls(
                io.semafor.client.TlsConfig.builder()
                    .trustedCa(java.nio.file.Path.of(args[++i]))
                    .build());
        case "--token-file" ->
            Workloads.token(
                java.nio.file.Files.readString(java.nio.file.Path.of(args[++i])).strip());
        case "--workloads" -> workloads = Arrays.asList(args[++i].split(",", -1));
        case "--clients" ->
            clients = Arrays.stream(args[++i].split(",", -1)).map(Integer::valueOf).toList();
        case "--duration" -> duration = duration(args[++i]);
        case "--warmup" -> warmup = duration(args[++i]);
        case "--json" -> json = true;
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    List<Process> started = new ArrayList<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopAll(started)));
    try {
      if (server == null && needsServer(workloads)) {
        Process p = spawn(List.of("-jar", serverJar, "--port", "0", "--admin-port", "-1"), started);
        String line = firstLine(p, "semafor server listening on ");
        server = line.substring("semafor server listening on ".length()).split(" ", -1)[0];
      }
      int echoPort = 0;
      if (workloads.contains("echo") || workloads.contains("echo-idle")) {
        Process p = spawn(List.of("-cp", ownJar(), EchoServer.class.getName()), started);
        String line = firstLine(p, "echo listening on ");
        echoPort = Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1));
      }
      if (!json) {
        System.out.printf(
            Locale.ROOT,
            "%d processors, %s, %s per run after %s of warm-up%n",
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.vm.version"),
            duration,
            warmup);
        System.out.println(Result.header());
      }
      Summary summary = new Summary();
      for (int round = 1; round <= rounds; round++) {
        for (int c : clients) {
          for (String workload : workloads) {
            Result r = run(workload, c, clients, server, echoPort, warmup, duration);
            if (r != null) {
              summary.add(round, r);
              System.out.println(json ? r.json() : r.row());
            }
          }
        }
      }
      if (rounds > 1) {
        System.out.println();
        System.out.println(summary.render(json));
      }
    } finally {
      stopAll(started);
    }
  }

  private static @Nullable Result run(
      String workload,
      int c,
      List<Integer> clients,
      @Nullable String server,
      int echoPort,
      Duration warmup,
      Duration duration)
      throws Exception {
    return switch (workload) {
      case "echo" -> Workloads.echo(echoPort, c, warmup, duration);
      case "W1" -> Workloads.acquireRelease("W1", nonNull(server), c, c, warmup, duration);
      case "W2" -> Workloads.acquireRelease("W2", nonNull(server), c, 4, warmup, duration);
      case "W3" ->
          c == clients.get(0) ? Workloads.handoff(nonNull(server), warmup, duration) : null;
      case "echo-idle" ->
          c == clients.get(0) ? Workloads.echoAfterIdle(echoPort, warmup, duration) : null;
      default -> throw new IllegalArgumentException("unknown workload " + workload);
    };
  }

  private static boolean needsServer(List<String> workloads) {
    return workloads.stream().anyMatch(w -> w.startsWith("W"));
  }

  private static String nonNull(@Nullable String server) {
    if (server == null) {
      throw new IllegalStateException("no server");
    }
    return server;
  }

  private static String ownJar() {
    try {
      return new File(
              LoadGenerator.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .getPath();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Process spawn(List<String> javaArgs, List<Process> started) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(javaArgs);
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    started.add(p);
    return p;
  }

  private static String firstLine(Process p, String prefix) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(prefix)) {
        drain(out);
        return line;
      }
    }
    throw new IOException("process " + p.pid() + " ended without saying '" + prefix + "'");
  }

  /** Keeps reading a child's output so that it never blocks on a full pipe. */
  private static void drain(BufferedReader out) {
    Thread t =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // discarded: the child's log is not part of the figures
                }
              } catch (IOException e) {
                // the child is gone
              }
            },
            "drain");
    t.setDaemon(true);
    t.start();
  }

  private static void stopAll(List<Process> started) {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroy();
        try {
          if (!p.waitFor(5, TimeUnit.SECONDS)) {
            p.destroyForcibly();
          }
        } catch (InterruptedException e) {
          p.destroyForcibly();
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  static Duration duration(String text) {
    String v = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      return switch (v.charAt(v.length() - 1)) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        default -> throw new NumberFormatException();
      };
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException(
          "not a duration: '" + text + "' (write it like 500ms, 10s or 2m)", e);
    }
  }
}
