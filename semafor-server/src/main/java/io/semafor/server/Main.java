package io.semafor.server;

import io.netty.util.ResourceLeakDetector;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.server.options.CommandLines;
import io.semafor.server.options.ConfigDefaults;
import io.semafor.server.options.ServerOptions;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code java -jar semafor-server.jar [OPTIONS]}: runs a single-node server until interrupted. Its
 * options are {@link ServerOptions}, the same definition {@code semafor server} uses; {@code
 * --help} lists them. A user's mistake prints one line and exits 2; a port in use prints one line
 * and exits 1; {@code --debug} adds stack traces to unexpected failures.
 */
@Command(
    name = "semafor-server",
    description = {
      "Run a single-node Semafor server until Ctrl-C: state in memory, no external service.",
      "Prometheus metrics on http://HOST:ADMIN_PORT/metrics, health on /health.",
      "A cluster node needs the semafor command: semafor server --node-id ... (docs/cluster.md)."
    },
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    sortOptions = false)
public final class Main implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  @Mixin ServerOptions options = new ServerOptions();

  @Option(names = "--debug", description = "Print stack traces of unexpected failures.")
  boolean debug;

  Main() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    System.exit(execute(System.getenv(), args));
  }

  /** Runs the command line with {@code environment} and returns its status (without exiting). */
  static int execute(Map<String, String> environment, String... args) {
    CommandLine line = new CommandLine(new Main());
    line.setParameterExceptionHandler(CommandLines.oneLineUsageErrors());
    line.setCaseInsensitiveEnumValuesAllowed(true);
    line.setExecutionExceptionHandler(Main::failed);
    try {
      ConfigDefaults.install(line, List.of(args), environment);
    } catch (ConfigDefaults.BadConfig e) {
      line.getErr().println("semafor-server: --config " + e.getMessage());
      return line.getCommandSpec().exitCodeOnInvalidInput();
    }
    return line.execute(args);
  }

  @Override
  public Integer call() throws InterruptedException {
    Logging.configure(options.logFormat());
    options.checkPeerOptions(false);
    run(options.config(options.host(), options.port()));
    return 0;
  }

  private static int failed(Exception e, CommandLine line, CommandLine.ParseResult parsed) {
    PrintWriter err = line.getErr();
    if (e instanceof CommandLine.ParameterException) {
      err.println("semafor-server: " + e.getMessage());
      return line.getCommandSpec().exitCodeOnInvalidInput();
    }
    if (CommandLines.cannotListen(e) && line.getCommand() instanceof Main main) {
      err.println(
          "semafor-server: "
              + ListenFailed.messageFor(
                  e, "--port", main.options.host() + ":" + main.options.port()));
      return 1;
    }
    err.println(
        "semafor-server: unexpected "
            + e
            + (CommandLines.debug(parsed) ? "" : " (--debug prints its stack trace)"));
    if (CommandLines.debug(parsed)) {
      e.printStackTrace(err);
    }
    return 1;
  }

  /** The build's version and commit ({@link BuildInfo}). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"semafor-server " + BuildInfo.describe()};
    }
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
    run(config, replicators, server -> null);
  }

  /**
   * Something that runs beside a server and ends before it: the HTTP API (semafor-http), which this
   * module cannot name since it depends on this one. Closed by the shutdown hook before the server,
   * so its callers are answered while the server still serves them.
   */
  public interface Companion extends AutoCloseable {
    /** The line printed once it runs ({@code semafor http api on http://...}). */
    String banner();

    /** Stops it; idempotent. */
    @Override
    void close();
  }

  /** Starts a {@link Companion} of a server that listens, or none (null). */
  @FunctionalInterface
  public interface CompanionStarter {
    /**
     * Starts the companion of {@code server}, which listens already; null for none.
     *
     * @throws ListenFailed if its port cannot be bound (the server is then closed and the command
     *     fails with one line naming the port)
     */
    @Nullable Companion start(SemaforServer server) throws InterruptedException;
  }

  /**
   * Like {@link #run(ServerConfig, ReplicatorFactory)}, with a companion started once the server
   * listens and stopped before it ({@code semafor server} starts the HTTP API so).
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the failure's action exits; nothing to check
  public static void run(
      ServerConfig config, ReplicatorFactory replicators, CompanionStarter companions)
      throws InterruptedException {
    if (System.getProperty("io.netty.leakDetection.level") == null) {
      // sampling leak detection records a stack trace per sampled buffer: a measured 2% of the
      // event loops' time for a check that only finds bugs in tests (which keep it on)
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
    SemaforServer server = SemaforServer.start(config, replicators);
    Companion companion;
    try {
      companion = companions.start(server);
    } catch (RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (companion != null) {
                    companion.close();
                  }
                  server.close();
                  stopped.countDown();
                },
                "semafor-shutdown"));
    InetSocketAddress admin = server.adminAddress();
    String adminUrl =
        admin == null
            ? ""
            : (config.tls() == null ? "http" : "https")
                + "://"
                + config.host()
                + ":"
                + admin.getPort()
                + "/";
    System.out.println(
        "semafor server listening on "
            + hostPort(server)
            + (config.tls() == null ? "" : " with TLS")
            + (admin == null
                ? ""
                : " (console: " + adminUrl + ", metrics: " + adminUrl + "metrics)"));
    if (companion != null) {
      System.out.println(companion.banner());
    }
    System.out.flush();
    server
        .failure()
        .thenAccept(
            what -> {
              // fail-stop: a node whose log cannot be trusted stops; a supervisor starts it again
              // and it recovers from its disk and the other members (decision 0032). The exit runs
              // on a thread of its own: this one is Ratis's, which the shutdown hook's close of the
              // Raft server waits for.
              log.error(
                  "stopping: {}. Start this node again (once its disk is healthy, if it failed):"
                      + " it recovers from its disk and the other members.",
                  what);
              Thread exit = new Thread(() -> System.exit(EXIT_LOG_FAILED), "semafor-fail-stop");
              exit.start();
            });
    stopped.await();
  }

  /** The exit status when the node's log could not be written: sysexits.h's EX_IOERR. */
  public static final int EXIT_LOG_FAILED = 74;

  private static String hostPort(SemaforServer server) {
    return server.config().host() + ":" + server.address().getPort();
  }
}
