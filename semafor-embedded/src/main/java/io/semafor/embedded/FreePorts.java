package io.semafor.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Ports for servers that a test (or a script) starts later, such as the members of a cluster whose
 * {@code --peers} must name every port before any of them listens. A server that can take port 0
 * should: only a port chosen before the server binds needs this class.
 *
 * <p>Why not {@code new ServerSocket(0)}: a port the kernel hands out for {@code bind(0)} lies in
 * its ephemeral range (Linux: 32768–60999), which is also where the local ports of outgoing
 * connections come from, so between the pick and the server's bind a connection of the same machine
 * can take it ("Failed to bind to address", CI at 55c06ee). These ports come from 20000 to 31999
 * instead. And since test JVMs may run side by side (Maven modules built in parallel), each port
 * handed out is also locked for the life of this JVM through a file in {@code
 * java.io.tmpdir}/semafor-ports: another JVM using this class never hands out the same port
 * meanwhile.
 *
 * <p>Thread-safe. No port is handed out twice by one JVM.
 */
public final class FreePorts {
  private static final int LOW = 20_000;
  private static final int HIGH = 32_000;
  private static final int TRIES = 500;
  private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "semafor-ports");

  /** Every port handed out by this JVM, with the lock that keeps other JVMs off it. */
  private static final Map<Integer, Held> GIVEN = new ConcurrentHashMap<>();

  /**
   * A port this JVM holds: the open file whose lock keeps other JVMs off it, or none where locks
   * cannot work (no writable temporary directory), leaving only this JVM's own bookkeeping.
   */
  private record Held(@Nullable FileChannel lockedFile) {
    void release() {
      if (lockedFile != null) {
        try {
          lockedFile.close();
        } catch (IOException ignored) {
          // closing a lock file: nothing else to do
        }
      }
    }
  }

  private FreePorts() {}

  /**
   * A port in 20000..31999 that could be bound on every address just now, and that no other JVM
   * using this class holds.
   *
   * @throws IllegalStateException if none of 500 tries succeeded
   */
  public static int next() {
    return next(LOW, HIGH, LOCKS);
  }

  /** {@link #next()} over ports {@code low..high-1}, with lock files in {@code locks}. */
  static int next(int low, int high, Path locks) {
    for (int i = 0; i < TRIES; i++) {
      int port = ThreadLocalRandom.current().nextInt(low, high);
      if (GIVEN.containsKey(port)) {
        continue; // handed out already: its server may be starting, or closing
      }
      Held held = hold(locks, port);
      if (held == null) {
        continue; // another JVM holds it
      }
      if (GIVEN.putIfAbsent(port, held) != null) {
        held.release(); // another thread of this JVM took it meanwhile
        continue;
      }
      // without SO_REUSEADDR, as gRPC's Netty server binds: a port whose last connections are in
      // TIME_WAIT is refused here too ("Address already in use" at 31797, CI at 6cdd07e)
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new InetSocketAddress(port));
        return port;
      } catch (IOException taken) {
        // in use by something that does not use this class; keep it locked, try another
      }
    }
    throw new IllegalStateException(
        "no free port in " + low + ".." + (high - 1) + " after " + TRIES + " tries");
  }

  /** Holds {@code port} for this JVM, or answers null if another JVM holds it. */
  private static @Nullable Held hold(Path locks, int port) {
    FileChannel file;
    try {
      Files.createDirectories(locks);
      file =
          FileChannel.open(
              locks.resolve(Integer.toString(port)),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE);
    } catch (IOException e) {
      return new Held(null); // no lock directory (read-only tmp): this JVM's bookkeeping only
    }
    try {
      if (file.tryLock() != null) {
        return new Held(file); // kept open, so locked, until this JVM exits
      }
    } catch (OverlappingFileLockException e) {
      // held by this JVM through another channel: treated as held
    } catch (IOException e) {
      return new Held(file); // a file system without locks: this JVM's bookkeeping only
    }
    new Held(file).release();
    return null;
  }
}
