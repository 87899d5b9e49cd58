package io.semafor.server;

import io.netty.util.ResourceLeakDetector;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a single-node server until interrupted: {@code java -jar semafor-server.jar [--host H]
 * [--port P] [--session-ttl D] [--io-threads N]}. Durations look like {@code 500ms}, {@code 10s},
 * {@code 2m}.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    Logging.configure(Logging.Format.TEXT);
    ServerConfig config;
    try {
      config = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("semafor-server: " + e.getMessage());
      System.err.println(
          "usage: semafor-server [--host H] [--port P] [--admin-port A] [--session-ttl D]"
              + " [--io-threads N]");
      System.exit(2);
      return;
    }
    run(config);
  }

  /**
   * Runs a server with {@code config} until the JVM is asked to stop (Ctrl-C, SIGTERM), then stops
   * it gracefully. Prints {@code semafor server listening on HOST:PORT} once it listens (and the
   * admin endpoint's address if it has one).
   *
   * @throws InterruptedException if the calling thread is interrupted while serving
   */
  public static void run(ServerConfig config) throws InterruptedException {
    run(config, ReplicatorFactory.LOCAL);
  }

  /** Like {@link #run(ServerConfig)}, applying commands through {@code replicators}. */
  public static void run(ServerConfig config, ReplicatorFactory replicators)
      throws InterruptedException {
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      // sampling leak detection records a stack trace per sampled buffer: a measured 2% of the
      // event loops' time for a check that only finds bugs in tests (which keep it on)
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
    SemaforServer server = SemaforServer.start(config, replicators);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "semafor-shutdown"));
    InetSocketAddress admin = server.adminAddress();
    System.out.println(
        "semafor server listening on "
            + hostPort(server)
            + (admin == null
                ? ""
                : " (metrics: http://" + config.host() + ":" + admin.getPort() + "/metrics)"));
    System.out.flush();
    stopped.await();
  }

  private static String hostPort(SemaforServer server) {
    return server.config().host() + ":" + server.address().getPort();
  }

  static ServerConfig parse(String[] args) {
    ServerConfig.Builder b = ServerConfig.builder().adminPort(7401);
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      String value = args[++i];
      switch (flag) {
        case "--host" -> b.host(value);
        case "--port" -> b.port(integer(flag, value));
        case "--session-ttl" -> b.defaultSessionTtl(duration(flag, value));
        case "--io-threads" -> b.ioThreads(integer(flag, value));
        case "--admin-port" -> b.adminPort(integer(flag, value));
        default -> throw new IllegalArgumentException("unknown option " + flag);
      }
    }
    return b.build();
  }

  private static int integer(String flag, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": not a number: " + value, e);
    }
  }

  /** Parses {@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h}. */
  static Duration duration(String flag, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      return switch (v.charAt(v.length() - 1)) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> throw new IllegalArgumentException(flag + ": not a duration: " + value);
      };
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException(flag + ": not a duration: " + value, e);
    }
  }
}
