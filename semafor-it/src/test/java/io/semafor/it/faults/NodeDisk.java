package io.semafor.it.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One node's disk, which the disk nemeses break: a tmpfs of its own (so that it can be filled
 * without filling the machine's disk), a tracer that makes {@code fsync}/{@code fdatasync} fail
 * with EIO or take long (strace's syscall fault injection, attached to every thread of the node's
 * JVM), and the torn tail that a power cut leaves in the log segment being written.
 *
 * <p>The tmpfs is mounted on first use and unmounted by {@link #close}; a test JVM killed before
 * then leaves a marker that {@link #removeLeftovers} reads (called when a network is made). Needs
 * root, {@code mount} and, for the fsync faults, {@code strace}. Not thread-safe: the harness
 * drives it.
 */
public final class NodeDisk implements AutoCloseable {
  /** Size of each node's tmpfs: tens of runs' worth of log, and little to fill. */
  static final String SIZE = "64m";

  private static final Path MARKERS = Path.of("/tmp/semafor-faults/mounts");

  private final Path dir;
  private boolean mounted;
  private @Nullable Process tracer;

  /** The disk under {@code dir} (the node's data directory), not mounted yet. */
  public NodeDisk(Path dir) {
    this.dir = dir.toAbsolutePath();
  }

  Path dir() {
    return dir;
  }

  /** Mounts the tmpfs on the data directory, if not yet; its content lives as long as the mount. */
  public void mount() {
    if (mounted) {
      return;
    }
    try {
      Files.createDirectories(dir);
      Files.createDirectories(MARKERS);
      Files.writeString(
          marker(), ProcessHandle.current().pid() + "\n" + dir + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TestNetwork.run("mount", "-t", "tmpfs", "-o", "size=" + SIZE, "tmpfs", dir.toString());
    mounted = true;
  }

  private Path marker() {
    return MARKERS.resolve(Integer.toHexString(dir.toString().hashCode()));
  }

  // ------------------------------------------------------------------ a full disk

  private Path filler() {
    return dir.resolve("filler");
  }

  /** Fills the disk to the last byte: every write the node makes then fails with ENOSPC. */
  public void fill() {
    // fallocate takes what is free in one call; a second file catches the last partial block
    TestNetwork.run("sh", "-c", "fallocate -l " + SIZE + " " + filler() + " 2>/dev/null; true");
    TestNetwork.run("sh", "-c", "dd if=/dev/zero of=" + filler() + ".tail bs=4k 2>/dev/null; true");
  }

  /** Frees what {@link #fill} took. */
  public void unfill() {
    try {
      Files.deleteIfExists(filler());
      Files.deleteIfExists(Path.of(filler() + ".tail"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------ fsync faults

  /** Every fsync and fdatasync of process {@code pid} fails with EIO until {@link #untrace}. */
  void failSyncs(long pid) {
    untrace();
    try {
      tracer = SyncFaults.failWithEio(pid, traceLog());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every fsync and fdatasync of process {@code pid} first waits {@code millis}. */
  void slowSyncs(long pid, long millis) {
    untrace();
    try {
      tracer = SyncFaults.delay(pid, TimeUnit.MILLISECONDS.toMicros(millis), traceLog());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path traceLog() {
    return dir.resolveSibling("strace.log");
  }

  /** Detaches the tracer: syncs behave again. */
  void untrace() {
    Process t = tracer;
    tracer = null;
    if (t != null && t.isAlive()) {
      t.destroy(); // SIGTERM: strace detaches from every thread before it exits
      try {
        if (!t.waitFor(10, TimeUnit.SECONDS)) {
          t.destroyForcibly();
          t.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ------------------------------------------------------------------ power loss

  /**
   * Flips one byte in the middle of the snapshot the node would start from (its node stopped
   * first): what a bad sector leaves. Returns that file; empty if the node has no finished snapshot
   * yet. On the MicroRaft replicator, whose snapshot is part of its newest segment's base, damages
   * that base ({@link MicroRaftLogFiles#damageBase}).
   */
  Optional<Path> corruptNewestSnapshot() {
    try {
      Optional<Path> microRaft = MicroRaftLogFiles.damageBase(dir);
      if (microRaft.isPresent()) {
        return microRaft; // MicroRaft's snapshot lives in its segment's base
      }
      Optional<Path> newest = SnapshotFiles.newestFinished(dir);
      if (newest.isPresent()) {
        SnapshotFiles.flipOneByte(newest.get());
      }
      return newest;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Leaves what a power cut leaves while a record was being appended ({@link TornTail}, or {@link
   * MicroRaftLogFiles#tear} on the MicroRaft replicator). Call with the node down. Returns the
   * segment torn, or empty if the node has none open.
   */
  Optional<Path> tearTail(Random random, int maxBytes) {
    try {
      Optional<Path> microRaft = MicroRaftLogFiles.tear(dir, random, maxBytes);
      return microRaft.isPresent() ? microRaft : TornTail.tear(dir, random, maxBytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------ clean-up

  /** Detaches the tracer and unmounts the tmpfs (its content goes with it); idempotent. */
  @Override
  public void close() {
    untrace();
    if (mounted) {
      mounted = false;
      TestNetwork.run("umount", "-l", dir.toString());
      try {
        Files.deleteIfExists(marker());
      } catch (IOException e) {
        // the marker only helps a later run clean up; it finds nothing left to unmount
      }
    }
  }

  /** Unmounts the node disks of test JVMs that died before closing them. */
  static void removeLeftovers() {
    if (!Files.isDirectory(MARKERS)) {
      return;
    }
    try (Stream<Path> markers = Files.list(MARKERS)) {
      List<Path> dead = new ArrayList<>();
      for (Path marker : markers.toList()) {
        List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
        boolean alive =
            !lines.isEmpty()
                && ProcessHandle.of(Long.parseLong(lines.get(0).strip()))
                    .map(ProcessHandle::isAlive)
                    .orElse(false);
        if (!alive) {
          if (lines.size() > 1) {
            TestNetwork.quietly("umount", "-l", lines.get(1).strip());
          }
          dead.add(marker);
        }
      }
      for (Path marker : dead) {
        Files.deleteIfExists(marker);
      }
    } catch (IOException | NumberFormatException e) {
      throw new IllegalStateException("cannot clean up the node disks left over: " + e, e);
    }
  }
}
