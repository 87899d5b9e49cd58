package io.semafor.http;

import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link HttpLeaseLoad}'s loop over the binary protocol, for comparison: N threads sharing one
 * {@link SemaforClient} (as the HTTP API's anonymous callers share one pooled client), each
 * acquiring a lease and releasing it. Bounded by the seconds given.
 *
 * <pre>
 * java -cp "semafor-http/target/test-classes:$(cat cp.txt)" io.semafor.http.BinaryLeaseLoad \
 *     127.0.0.1:7400 16 10
 * </pre>
 */
public final class BinaryLeaseLoad {
  private BinaryLeaseLoad() {}

  public static void main(String[] args) throws Exception {
    String address = args.length > 0 ? args[0] : "127.0.0.1:7400";
    int callers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    try (SemaforClient client = SemaforClient.connect(address)) {
      NamedSemaphore sem = client.create("load-binary", callers);
      AtomicLong done = new AtomicLong();
      AtomicBoolean counting = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (!stop.get()) {
                      Lease lease =
                          sem.acquireLease(1, Duration.ofSeconds(30), Duration.ofSeconds(5));
                      if (lease == null) {
                        throw new IllegalStateException("not granted");
                      }
                      lease.release();
                      if (counting.get()) {
                        done.incrementAndGet();
                      }
                    }
                  } catch (Exception e) {
                    System.err.println("caller failed: " + e);
                  }
                });
        t.start();
        threads.add(t);
      }
      Thread.sleep(2000);
      counting.set(true);
      long start = System.nanoTime();
      Thread.sleep(seconds * 1000L);
      counting.set(false);
      double elapsed = (System.nanoTime() - start) / 1e9;
      stop.set(true);
      for (Thread t : threads) {
        t.join(15_000);
      }
      System.out.printf(
          "%d callers (binary, one client), %.1f s: %d pairs, %.0f pairs/s%n",
          callers, elapsed, done.get(), done.get() / elapsed);
    }
  }
}
