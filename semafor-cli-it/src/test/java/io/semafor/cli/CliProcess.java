package io.semafor.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs {@code semafor} as a separate JVM, as a user's shell would, and collects what it said. */
final class CliProcess {
  private CliProcess() {}

  /** How a finished command ended. */
  record Finished(int status, String out, String err) {}

  /** The command line for {@code semafor SUBCOMMAND --server ADDRESS ARGS...}. */
  static List<String> commandLine(String server, String... args) {
    List<String> command = rawCommandLine(args[0]);
    command.add("--server");
    command.add(server);
    command.addAll(Arrays.asList(args).subList(1, args.length));
    return command;
  }

  /**
   * The command line for {@code semafor ARGS...} as given, in this JVM's java and classpath, with
   * C1 only and the serial collector: the options the {@code semafor} script gives a client command
   * (decision 0025), and those the fault harness gives its nodes. A short-lived, lightly loaded
   * server needs half the CPU with them (2.2 s against 1.2 s for a start and three requests), and
   * CPU is what bounds the default build on 2 cores (decision 0056).
   */
  private static List<String> rawCommandLine(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(Arrays.asList(args));
    return command;
  }

  /** Runs {@code semafor ARGS...} as given, with {@code environment} added to this one's. */
  static Finished runWithEnvironment(java.util.Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(rawCommandLine(args));
    builder.environment().putAll(environment);
    return finish(builder.start(), args);
  }

  /** Runs {@code semafor ARGS...} as given (no {@code --server} added) to the end. */
  static Finished runRaw(String... args) throws IOException, InterruptedException {
    return finish(new ProcessBuilder(rawCommandLine(args)).start(), args);
  }

  /**
   * Starts {@code semafor ARGS...} as given, its output going to {@code log}; the caller stops it
   * (by PID, through {@link Process}).
   */
  static Process startRaw(Path log, String... args) throws IOException {
    return new ProcessBuilder(rawCommandLine(args))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /**
   * Starts {@code semafor ARGS...} as given with {@code environment} added to this one's, its
   * output going to {@code log}; the caller stops it (by PID, through {@link Process}).
   */
  static Process startRawWithEnvironment(
      Path log, java.util.Map<String, String> environment, String... args) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(rawCommandLine(args))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(environment);
    return builder.start();
  }

  /** Starts it; the caller stops it (by PID, through {@link Process}). */
  static Process start(String server, String... args) throws IOException {
    return new ProcessBuilder(commandLine(server, args)).start();
  }

  /** Runs it to the end (at most 60 s) and returns its status and output. */
  static Finished run(String server, String... args) throws IOException, InterruptedException {
    return finish(start(server, args), args);
  }

  private static Finished finish(Process p, String... args) throws InterruptedException {
    // Read while it runs: a command printing more than a pipe holds would otherwise block forever.
    FutureTask<String> out = drain(p.getInputStream());
    FutureTask<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        throw new AssertionError("semafor " + String.join(" ", args) + " did not finish in 60 s");
      }
      return new Finished(p.exitValue(), output(out), output(err));
    } finally {
      p.destroyForcibly();
    }
  }

  private static FutureTask<String> drain(InputStream stream) {
    FutureTask<String> task =
        new FutureTask<>(() -> new String(stream.readAllBytes(), StandardCharsets.UTF_8));
    Thread reader = new Thread(task, "cli-output");
    reader.setDaemon(true);
    reader.start();
    return task;
  }

  /** What a finished process printed (its stream ends with it, so this does not wait long). */
  private static String output(FutureTask<String> drained) throws InterruptedException {
    try {
      return drained.get(10, TimeUnit.SECONDS).strip();
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("reading the command's output failed", e);
    }
  }
}
