package io.semafor.it.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One node's wall clock, which the clock nemeses move: the node's JVM runs with libfaketime
 * preloaded (Debian's {@code faketime} package), reading its offset and rate from a file of its own
 * that the harness rewrites; libfaketime reads it again at most a second later.
 *
 * <p>Only the wall clock ({@code CLOCK_REALTIME}: {@code System.currentTimeMillis()}, {@code
 * Instant.now()}) is faked. The monotonic clock ({@code System.nanoTime()}), which Semafor and
 * Ratis time everything with, is left alone: a JVM whose monotonic clock libfaketime fakes hangs
 * (libfaketime's README says so, and it did here), and it is also the clock NTP never steps. So
 * these faults show that nothing in a node depends on its wall clock — what the clock faults of
 * Jepsen's suites test for systems whose leases are on wall time. Only jumps: a rate ({@code "+0
 * x2"}) made the JVM's timed waits hang for good, even after the rate was reset (measured with a
 * loop of {@code Thread.sleep}), which no real clock does.
 *
 * <p>Two settings matter, both found by trying: {@code FAKETIME_DONT_FAKE_MONOTONIC=1} (else the
 * JVM hangs) and {@code FAKETIME_FORCE_MONOTONIC_FIX=0} (libfaketime turns its {@code
 * pthread_cond_timedwait} work-around on by itself with this glibc; with it, timed waits in the JVM
 * go wrong, and three Ratis nodes kept electing leaders that never held for a minute). Not
 * thread-safe: the harness drives it.
 */
final class NodeClock {
  private static final List<Path> LIBRARIES =
      List.of(
          Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/faketime/libfaketime.so.1"));

  private final Path file;

  /** The clock whose settings live in {@code file}, written when the node first starts. */
  NodeClock(Path file) {
    this.file = file.toAbsolutePath();
  }

  /** libfaketime's preload library on this machine; null if it is not installed. */
  static @Nullable Path library() {
    for (Path p : LIBRARIES) {
      if (Files.isReadable(p)) {
        return p;
      }
    }
    return null;
  }

  /**
   * What the node's command line needs before {@code java}: {@code env} with libfaketime's
   * settings.
   *
   * @throws IllegalStateException if libfaketime is not installed
   */
  List<String> envCommand() {
    Path library = library();
    if (library == null) {
      throw new IllegalStateException("libfaketime is not installed (apt-get install faketime)");
    }
    if (!Files.exists(file)) {
      write("+0"); // a node starts on the true time
    }
    return List.of(
        "env",
        "LD_PRELOAD=" + library,
        "FAKETIME_TIMESTAMP_FILE=" + file,
        "FAKETIME_CACHE_DURATION=1",
        "FAKETIME_DONT_FAKE_MONOTONIC=1",
        "FAKETIME_FORCE_MONOTONIC_FIX=0");
  }

  /** The wall clock jumps by {@code seconds} (forward if positive), and stays that far off. */
  void jump(long seconds) {
    write(String.format(Locale.ROOT, "%+d", seconds));
  }

  /** The true time again. */
  void reset() {
    write("+0");
  }

  private void write(String spec) {
    try {
      // whole or not at all: libfaketime may read the file at any moment
      Files.createDirectories(file.getParent());
      Path temp = file.resolveSibling(file.getFileName() + ".new");
      Files.writeString(temp, spec + "\n", StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
