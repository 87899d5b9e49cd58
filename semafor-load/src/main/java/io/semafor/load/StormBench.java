package io.semafor.load;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * A grant storm (docs/benchmarks.md, "Grant storms"): {@code --waiters} acquires queued on one
 * semaphore by raw sessions of 4,000 each ({@link RawWaiters}), then one increment that serves them
 * all, while a well-behaved client on another semaphore runs a closed acquire/release loop. Prints
 * how long the increment took to be answered, how long until the last waiter had its grant, and the
 * other client's latency before and during the storm.
 *
 * <pre>
 * java -cp semafor-bench/target/benchmarks.jar io.semafor.load.StormBench \
 *     --server 127.0.0.1:7400 [--waiters 100000] [--storms 3]
 * </pre>
 *
 * Each storm starts from scratch (new semaphores, new sessions); the first warms the JVMs.
 */
public final class StormBench {
  private StormBench() {}

  public static void main(String[] args) throws Exception {
    String server = "127.0.0.1:7400";
    int waiters = 100_000;
    int storms = 3;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--server" -> server = args[++i];
        case "--waiters" -> waiters = Integer.parseInt(args[++i]);
        case "--storms" -> storms = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    for (int s = 1; s <= storms; s++) {
      storm(server, waiters, "storm-" + s + "-" + System.nanoTime());
    }
  }

  private static SemaforClient client(String server) {
    return SemaforClient.builder()
        .addresses(server)
        .sessionTtl(Duration.ofSeconds(60))
        .answerTimeout(Duration.ofSeconds(120))
        .connect();
  }

  private static void storm(String server, int waiters, String prefix) throws Exception {
    String[] hostPort = server.split(":", 2);
    InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
    try (SemaforClient producer = client(server);
        SemaforClient other = client(server)) {
      NamedSemaphore queue = producer.create(prefix + "-queue", 0);
      NamedSemaphore mine = other.create(prefix + "-other", 1);
      RawWaiters raw = new RawWaiters(address, queue.name(), waiters);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (queue.info().waiters() < waiters && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }

      // every op of the other client as [start, end]: an op counts as "during" if it overlapped
      // the storm at all, so an op stuck behind a one-step storm is not miscounted as "before"
      long[] starts = new long[4_000_000];
      long[] ends = new long[starts.length];
      int[] ops = {0};
      AtomicBoolean stop = new AtomicBoolean();
      Thread loop =
          new Thread(
              () -> {
                while (!stop.get() && ops[0] < starts.length) {
                  long t0 = System.nanoTime();
                  try {
                    mine.acquire(1);
                    mine.increment(1);
                  } catch (InterruptedException e) {
                    return;
                  }
                  starts[ops[0]] = t0;
                  ends[ops[0]] = System.nanoTime();
                  ops[0]++;
                }
              },
              "other-client");
      loop.start();
      Thread.sleep(2_000);

      long t0 = System.nanoTime();
      queue.increment(waiters);
      long answered = System.nanoTime();
      long last = raw.awaitAnswers(waiters, System.nanoTime() + TimeUnit.MINUTES.toNanos(2));
      Thread.sleep(200); // an op stuck behind the storm ends now
      stop.set(true);
      loop.join(10_000);
      raw.close();
      if (last < 0) {
        throw new IllegalStateException("the storm's grants did not all come within 2 minutes");
      }
      Histogram before = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      Histogram during = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      for (int i = 0; i < ops[0]; i++) {
        if (ends[i] < t0) {
          before.recordValue(ends[i] - starts[i]);
        } else if (starts[i] <= last) {
          during.recordValue(ends[i] - starts[i]);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "waiters %d: increment answered %.1f ms, last grant %.1f ms; other client"
              + " before p50 %.2f p99 %.2f ms (%d ops); during p50 %.2f p99 %.2f max %.2f ms"
              + " (%d ops)%n",
          waiters,
          (answered - t0) / 1e6,
          (last - t0) / 1e6,
          before.getValueAtPercentile(50) / 1e6,
          before.getValueAtPercentile(99) / 1e6,
          before.getTotalCount(),
          during.getValueAtPercentile(50) / 1e6,
          during.getValueAtPercentile(99) / 1e6,
          during.getMaxValue() / 1e6,
          during.getTotalCount());
    }
  }
}
