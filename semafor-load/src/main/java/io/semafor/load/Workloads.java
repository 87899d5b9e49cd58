package io.semafor.load;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The workloads of the load generator, each a closed loop: every client has its own connection and
 * thread, and issues its next request when the last one returned. Only what starts after the
 * warm-up counts.
 */
final class Workloads {
  private Workloads() {}

  /** One client's loop: does one unit of work (a pair, or two echo round trips). */
  interface Loop {
    /** Does one pair; returns the latency in nanoseconds to record, or -1 to record nothing. */
    long pair() throws Exception;
  }

  /** Makes client {@code i}'s loop, with its own connection. */
  interface LoopFactory {
    Loop create(int client) throws Exception;
  }

  /** Runs {@code clients} loops for {@code warmup + duration}; counts what starts after warmup. */
  static Result run(
      String workload, int clients, Duration warmup, Duration duration, LoopFactory factory)
      throws Exception {
    List<Loop> loops = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      loops.add(factory.create(c));
    }
    long[] counts = new long[clients];
    Histogram[] histograms = new Histogram[clients];
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    long measureFrom = System.nanoTime() + warmup.toNanos() + TimeUnit.MILLISECONDS.toNanos(100);
    long end = measureFrom + duration.toNanos();
    for (int c = 0; c < clients; c++) {
      int client = c;
      Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      histograms[c] = histogram;
      Thread t =
          new Thread(
              () -> {
                Loop loop = loops.get(client);
                try {
                  start.await();
                  while (true) {
                    long now = System.nanoTime();
                    if (now >= end) {
                      break;
                    }
                    long latency = loop.pair();
                    if (now >= measureFrom && latency >= 0) {
                      histogram.recordValue(Math.max(0, latency));
                      counts[client]++;
                    }
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              workload + "-" + c);
      t.start();
      threads.add(t);
    }
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(workload + " failed", failure.get());
    }
    Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    for (Histogram h : histograms) {
      all.add(h);
    }
    return Result.of(workload, clients, duration, counts, all);
  }

  /** W1 and W2: loop acquiring one owned permit and releasing it, on {@code permits} permits. */
  static Result acquireRelease(
      String workload, String server, int clients, long permits, Duration warmup, Duration duration)
      throws Exception {
    String name = workload + "-" + clients + "-" + System.nanoTime();
    List<SemaforClient> connections = new ArrayList<>();
    try {
      SemaforClient admin = connect(server, connections);
      admin.create(name, permits);
      return run(
          workload,
          clients,
          warmup,
          duration,
          c -> {
            NamedSemaphore semaphore = connect(server, connections).semaphore(name);
            return () -> {
              long t0 = System.nanoTime();
              Permit permit = semaphore.acquirePermit(1);
              long latency = System.nanoTime() - t0;
              permit.release();
              return latency;
            };
          });
    } finally {
      for (SemaforClient c : connections) {
        c.close();
      }
    }
  }

  /**
   * W3: two clients pass the only permit back and forth; the holder keeps it 5 ms so the other is
   * parked in the server, then releases. Latency: from the start of the release to the return of
   * the waiter's acquire.
   */
  static Result handoff(String server, Duration warmup, Duration duration) throws Exception {
    String name = "W3-" + System.nanoTime();
    List<SemaforClient> connections = new ArrayList<>();
    AtomicLong releaseStarted = new AtomicLong(Long.MAX_VALUE);
    try {
      connect(server, connections).create(name, 1);
      return run(
          "W3",
          2,
          warmup,
          duration,
          c -> {
            NamedSemaphore semaphore = connect(server, connections).semaphore(name);
            return () -> {
              Permit permit = semaphore.acquirePermit(1);
              long acquired = System.nanoTime();
              long since = releaseStarted.get();
              long latency = since == Long.MAX_VALUE ? -1 : acquired - since;
              LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
              releaseStarted.set(System.nanoTime());
              permit.release();
              return latency;
            };
          });
    } finally {
      for (SemaforClient c : connections) {
        c.close();
      }
    }
  }

  /**
   * The floor: each client sends 16 bytes to the echo server and reads 16 back, twice per "pair"
   * (one round trip stands for the acquire, one for the release).
   */
  static Result echo(int port, int clients, Duration warmup, Duration duration) throws Exception {
    List<EchoConnection> connections = new ArrayList<>();
    try {
      return run(
          "echo",
          clients,
          warmup,
          duration,
          c -> {
            EchoConnection echo = new EchoConnection(port);
            connections.add(echo);
            return () -> {
              long t0 = System.nanoTime();
              echo.roundTrip();
              long latency = System.nanoTime() - t0;
              echo.roundTrip();
              return latency;
            };
          });
    } finally {
      for (EchoConnection e : connections) {
        e.close();
      }
    }
  }

  /**
   * W3's floor: one client pauses 5 ms (as W3's holder does, so the echo server's thread has gone
   * idle) and then times a single 16-byte round trip. On this virtual machine waking an idle thread
   * is most of the cost, and W3 cannot wake fewer than this.
   */
  static Result echoAfterIdle(int port, Duration warmup, Duration duration) throws Exception {
    List<EchoConnection> connections = new ArrayList<>();
    try {
      return run(
          "echo-idle",
          1,
          warmup,
          duration,
          c -> {
            EchoConnection echo = new EchoConnection(port);
            connections.add(echo);
            return () -> {
              LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
              long t0 = System.nanoTime();
              echo.roundTrip();
              return System.nanoTime() - t0;
            };
          });
    } finally {
      for (EchoConnection e : connections) {
        e.close();
      }
    }
  }

  /** A plain blocking socket to the echo server: 16 bytes out, 16 back. */
  private static final class EchoConnection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final byte[] request = new byte[16];
    private final byte[] response = new byte[16];

    EchoConnection(int port) throws IOException {
      socket = new Socket(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port);
      socket.setTcpNoDelay(true);
      out = socket.getOutputStream();
      in = new DataInputStream(socket.getInputStream());
    }

    void roundTrip() throws IOException {
      out.write(request);
      in.readFully(response);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /** TLS for every client connection the workloads make; null (the default) for plain TCP. */
  private static volatile io.semafor.client.@org.jspecify.annotations.Nullable TlsConfig tls;

  /** Makes every later client connection speak TLS with {@code config} (LoadGenerator --tls-ca). */
  static void tls(io.semafor.client.TlsConfig config) {
    tls = config;
  }

  /** The bearer token every later client connection sends; empty (the default) for none. */
  private static volatile String token = "";

  /** Makes every later client connection authenticate with {@code value} (--token-file). */
  static void token(String value) {
    token = value;
  }

  private static synchronized SemaforClient connect(
      String server, List<SemaforClient> connections) {
    SemaforClient.Builder builder =
        SemaforClient.builder()
            .addresses(server)
            .clientName("load")
            .sessionTtl(Duration.ofSeconds(30))
            .token(token);
    io.semafor.client.TlsConfig config = tls;
    if (config != null) {
      builder.tls(config);
    }
    SemaforClient client = builder.connect();
    connections.add(client);
    return client;
  }
}
