package io.semafor.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The command {@code semafor run} runs: started with this process's standard streams, stopped on
 * request with SIGTERM and, if it is still running after a grace period, SIGKILL. Thread-safe:
 * {@link #stop} may be called from a shutdown hook or a client thread while another waits.
 */
final class Child {
  private final Process process;
  private final AtomicReference<@Nullable String> stoppedBecause = new AtomicReference<>();

  private Child(Process process) {
    this.process = process;
  }

  /**
   * Starts {@code command} with {@code environment} added to this process's.
   *
   * @throws IOException if it cannot be started; {@link #notFound} tells which kind
   */
  static Child start(List<String> command, Map<String, String> environment) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().putAll(environment);
    return new Child(builder.start());
  }

  /** Whether a start failure means the program does not exist (rather than cannot execute). */
  static boolean notFound(IOException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("error=2,") || message.contains("No such file");
  }

  /** Waits for it to end; returns its exit status (128 + the signal if a signal ended it). */
  int await() throws InterruptedException {
    return process.waitFor();
  }

  /** Waits at most {@code limit}; whether it has ended. */
  boolean await(Duration limit) throws InterruptedException {
    return process.waitFor(limit.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Sends SIGTERM now and SIGKILL if it is still running after {@code grace}; the first reason
   * given is kept. Returns at once.
   */
  void stop(String why, Duration grace) {
    if (!stoppedBecause.compareAndSet(null, why)) {
      return;
    }
    signal(false);
    CompletableFuture.delayedExecutor(grace.toNanos(), TimeUnit.NANOSECONDS)
        .execute(() -> signal(true));
  }

  /** SIGTERM (or SIGKILL) to the command and everything it started, children first. */
  private void signal(boolean kill) {
    process
        .descendants()
        .forEach(
            p -> {
              if (kill) {
                p.destroyForcibly();
              } else {
                p.destroy();
              }
            });
    if (kill) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
  }

  /** Why it was stopped, or null if it was not. */
  @Nullable String stoppedBecause() {
    return stoppedBecause.get();
  }

  long pid() {
    return process.pid();
  }
}
