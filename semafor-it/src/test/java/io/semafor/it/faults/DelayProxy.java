package io.semafor.it.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy that delays what it passes on: each chunk read from one side is written to the other
 * a random {@code minMillis..maxMillis} later, never before the chunk read before it (bytes keep
 * their order, as on a slow link; {@code tc netem} is not available on the machines this runs on).
 * It listens on the test network's gateway address, in the harness's own namespace; the hosts are
 * sent to it by {@link TestNetwork#redirect}.
 *
 * <p>Thread-safe; each connection takes four threads (a reader and a writer each way), which is
 * nothing at a fault run's few dozen connections. {@link #close} drops every connection.
 */
final class DelayProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final long minNanos;
  private final long spreadNanos;
  private final Random random;
  private final ServerSocket listener;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  /**
   * Listens on {@code bindAddress} (an ephemeral port) and forwards to {@code target}.
   *
   * @throws IOException if it cannot listen
   */
  DelayProxy(
      String bindAddress, InetSocketAddress target, long minMillis, long maxMillis, long seed)
      throws IOException {
    if (minMillis < 0 || maxMillis < minMillis) {
      throw new IllegalArgumentException("delay " + minMillis + ".." + maxMillis + " ms");
    }
    this.target = target;
    this.minNanos = TimeUnit.MILLISECONDS.toNanos(minMillis);
    this.spreadNanos = TimeUnit.MILLISECONDS.toNanos(maxMillis - minMillis);
    this.random = new Random(seed);
    this.listener = new ServerSocket(0, 64, InetAddress.getByName(bindAddress));
    daemon(this::accept, "delay-accept-" + target.getPort()).start();
  }

  /** The port it listens on. */
  int port() {
    return listener.getLocalPort();
  }

  private void accept() {
    while (!closed) {
      Socket from;
      try {
        from = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket to = new Socket();
      try {
        to.connect(target, 2_000);
        from.setTcpNoDelay(true);
        to.setTcpNoDelay(true);
      } catch (IOException e) {
        // the target is down or cut off: the caller sees its connection closed, as it would
        closeQuietly(from);
        closeQuietly(to);
        continue;
      }
      sockets.add(from);
      sockets.add(to);
      if (closed) {
        closeQuietly(from);
        closeQuietly(to);
        return;
      }
      oneWay(from, to);
      oneWay(to, from);
    }
  }

  /** A chunk to write once {@code dueNanos} has come; an empty one marks the end of the stream. */
  private record Chunk(long dueNanos, ByteBuffer bytes) {}

  private void oneWay(Socket from, Socket to) {
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    daemon(() -> read(from, to, queue), "delay-read").start();
    daemon(() -> write(from, to, queue), "delay-write").start();
  }

  private void read(Socket from, Socket to, BlockingQueue<Chunk> queue) {
    byte[] buffer = new byte[16 * 1024];
    long lastDue = 0;
    try {
      InputStream in = from.getInputStream();
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        lastDue = Math.max(lastDue, System.nanoTime() + delayNanos());
        queue.add(new Chunk(lastDue, ByteBuffer.wrap(Arrays.copyOf(buffer, n))));
      }
      queue.add(new Chunk(lastDue, ByteBuffer.allocate(0)));
    } catch (IOException e) {
      closeQuietly(from);
      closeQuietly(to);
      queue.add(new Chunk(0, ByteBuffer.allocate(0)));
    }
  }

  private void write(Socket from, Socket to, BlockingQueue<Chunk> queue) {
    try {
      OutputStream out = to.getOutputStream();
      while (true) {
        Chunk chunk = queue.take();
        long wait = chunk.dueNanos() - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        if (!chunk.bytes().hasRemaining()) {
          to.shutdownOutput(); // the other side closed its half: so does this one, delayed
          return;
        }
        out.write(chunk.bytes().array());
        out.flush();
      }
    } catch (IOException e) {
      closeQuietly(from);
      closeQuietly(to);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized long delayNanos() {
    return minNanos + (spreadNanos == 0 ? 0 : (long) (random.nextDouble() * spreadNanos));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already gone
    }
  }

  /** Stops listening and drops every connection (both sides see theirs closed). */
  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // nothing listens any more either way
    }
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }
}
