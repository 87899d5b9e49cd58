package io.semafor.cli;

import io.semafor.client.SemaforException;
import io.semafor.replication.DataDamagedException;
import io.semafor.server.ListenFailed;
import io.semafor.server.options.CommandLines;
import io.semafor.server.options.ConfigDefaults;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * {@code semafor ...}: parses, runs the subcommand, and maps what went wrong to an exit status and
 * a message that names the error code (docs/semantics.md#errors).
 */
public final class Main {
  private Main() {}

  /** The system property that sizes the JVM's common fork-join pool. */
  static final String COMMON_POOL_PARALLELISM =
      "java.util.concurrent.ForkJoinPool.common.parallelism";

  public static void main(String[] args) {
    // set before anything touches the pool
    String parallelism =
        commonPoolParallelism(
            System.getProperty(COMMON_POOL_PARALLELISM),
            Runtime.getRuntime().availableProcessors());
    if (parallelism != null) {
      System.setProperty(COMMON_POOL_PARALLELISM, parallelism);
    }
    // set before anything logs
    if (clientLogging(args.length == 0 ? "" : args[0], System.getProperties())) {
      System.setProperty(SLF4J_PROVIDER, ClientLogging.class.getName());
      // SLF4J announces an explicitly chosen provider on stderr at its default verbosity, INFO
      System.setProperty(SLF4J_VERBOSITY, System.getProperty(SLF4J_VERBOSITY, "WARN"));
    }
    System.exit(execute(args));
  }

  static final String SLF4J_PROVIDER = "slf4j.provider";
  static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";

  /**
   * Whether the subcommand named {@code first} logs through {@link ClientLogging} rather than
   * Logback: all but those that run servers or many clients, unless the user chose an SLF4J
   * provider or a Logback configuration file (decision 0025).
   */
  static boolean clientLogging(String first, java.util.Properties properties) {
    return !List.of("server", "cluster", "bench").contains(first)
        && properties.getProperty(SLF4J_PROVIDER) == null
        && properties.getProperty("logback.configurationFile") == null;
  }

  /**
   * The common pool's parallelism to set, or null to leave the JVM's. Below 2, CompletableFuture's
   * default async executor starts a new thread per task, and Ratis runs one such task for every
   * entry a follower appends: on a 2-core machine (where the JVM's default is 1) that was 12% of a
   * follower's CPU under load (decision 0018). An operator's own setting is kept.
   */
  static @Nullable String commonPoolParallelism(@Nullable String configured, int processors) {
    return configured == null && processors <= 2 ? "2" : null;
  }

  /** Runs the command line and returns its exit status (without exiting). */
  static int execute(String... args) {
    return execute(System.getenv(), args);
  }

  /** Runs the command line, {@code environment} standing for the process's environment. */
  static int execute(Map<String, String> environment, String... args) {
    // subcommands first: picocli's settings below apply to the subcommands it has then
    CommandLine cli = SemaforCommand.commandLine(args.length == 0 ? "" : args[0]);
    cli.setExecutionExceptionHandler(new Failed());
    cli.setParameterExceptionHandler(CommandLines.oneLineUsageErrors());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    if (args.length > 0 && args[0].equals("server")) {
      CommandLine server = java.util.Objects.requireNonNull(cli.getSubcommands().get("server"));
      try {
        ConfigDefaults.install(server, List.of(args).subList(1, args.length), environment);
      } catch (ConfigDefaults.BadConfig e) {
        server.getErr().println("semafor server: --config " + e.getMessage());
        return ExitCodes.USAGE;
      }
    }
    return cli.execute(args);
  }

  /**
   * {@link #failed} as a named class, not a method reference: picocli's interfaces are Java 5 class
   * files, and a lambda implementing one keeps it out of the CDS archive (decision 0025).
   */
  private static final class Failed implements CommandLine.IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(
        Exception e, CommandLine command, CommandLine.ParseResult parseResult) {
      return failed(e, command, parseResult);
    }
  }

  private static int failed(Exception e, CommandLine command, CommandLine.ParseResult parseResult) {
    boolean json = command.getCommand() instanceof ClientCommand client && client.json();
    PrintWriter err = command.getErr();
    if (e instanceof ServerOptions.Unreachable unreachable) {
      report(command, json, "UNAVAILABLE", String.valueOf(unreachable.getMessage()));
      return ExitCodes.UNREACHABLE;
    }
    if (e instanceof SemaforException s) {
      report(command, json, s.code().name(), message(s));
      return ExitCodes.FAILED;
    }
    if (e instanceof SnapshotCommand.Problem problem) {
      err.println("semafor: " + problem.getMessage());
      return ExitCodes.FAILED;
    }
    if (e instanceof CommandLine.ParameterException || e instanceof ServerOptions.BadOption) {
      err.println("semafor: " + e.getMessage());
      return ExitCodes.USAGE;
    }
    if (command.getCommand() instanceof ServerCommand && causedBy(e, DataDamagedException.class)) {
      err.println("semafor server: " + CommandLines.rootMessage(e));
      return ExitCodes.DATA_DAMAGED;
    }
    if (command.getCommand() instanceof ServerCommand
        && causedBy(e, io.semafor.replication.ForeignDataDirException.class)) {
      err.println("semafor server: " + CommandLines.rootMessage(e));
      return ExitCodes.FAILED;
    }
    if (command.getCommand() instanceof ServerCommand server && CommandLines.cannotListen(e)) {
      err.println(
          "semafor server: "
              + ListenFailed.messageFor(e, server.clientPortOption(), server.listenAddress()));
      return ExitCodes.FAILED;
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return ExitCodes.FAILED;
    }
    boolean debug = CommandLines.debug(parseResult);
    err.println(
        "semafor: unexpected "
            + e
            + (debug ? "" : " (run it again with --debug to see the stack trace)"));
    if (debug) {
      e.printStackTrace(err);
    }
    return ExitCodes.FAILED;
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> kind) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (kind.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /** The exception's message without the code in front, which {@link #report} adds. */
  private static String message(SemaforException e) {
    String m = String.valueOf(e.getMessage());
    String prefix = e.code().name() + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  private static void report(CommandLine command, boolean json, String code, String message) {
    if (json) {
      command.getOut().println(Output.toJson(Output.fields("error", code, "message", message)));
      command.getOut().flush();
    } else {
      command.getErr().println("semafor: " + code + ": " + message);
    }
  }
}
