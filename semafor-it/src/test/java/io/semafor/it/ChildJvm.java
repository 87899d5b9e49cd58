package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@code main} class of this test classpath run in its own JVM, for tests that freeze or kill a
 * client process. Its standard output is read line by line on a daemon thread; {@link #close} kills
 * it (also a stopped one) and waits for it to be gone. Not thread-safe: one test drives it.
 */
final class ChildJvm implements AutoCloseable {
  private static final String EOF = "\0eof";

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ChildJvm(Process process) {
    this.process = process;
    Thread reader = new Thread(this::readLines, "child-" + process.pid() + "-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code main} with {@code args}; its standard error is discarded. */
  static ChildJvm start(Class<?> main, String... args) throws IOException {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-XX:TieredStopAtLevel=1", // C1 and the serial collector: half the CPU of a short
                "-XX:+UseSerialGC", // life (decision 0056)
                "-cp",
                classpath,
                main.getName()));
    command.addAll(List.of(args));
    return new ChildJvm(
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start());
  }

  private void readLines() {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      // the process was killed under the reader: its output ends here
    }
    lines.add(EOF);
  }

  /**
   * The next line of output that starts with {@code prefix}, skipping others; fails if none comes
   * within {@code timeout} or the output ends first.
   */
  String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new AssertionError("no line starting with " + prefix + " within " + timeout);
      }
      if (line.equals(EOF)) {
        lines.add(EOF);
        throw new AssertionError("the process ended before printing " + prefix);
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  /** Sends a signal by name ({@code STOP}, {@code CONT}, {@code KILL}), as {@code kill -NAME}. */
  void signal(String name) throws InterruptedException {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).as("kill -%s returned", name).isTrue();
      assertThat(kill.exitValue()).as("kill -%s succeeded", name).isZero();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends SIGKILL and waits until the process is gone. */
  void killNine() throws InterruptedException {
    signal("KILL");
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("killed process gone").isTrue();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly(); // SIGKILL ends a stopped process too
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
