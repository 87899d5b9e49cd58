package io.semafor.examples;

import io.semafor.SemaphoreOptions;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most 3 jobs at a time, however many processes start them: each job holds an owned permit for
 * as long as it runs, and gives it back when done — or when its process dies.
 */
public final class LimitConcurrentJobs {
  private LimitConcurrentJobs() {}

  public static void main(String[] args) throws Exception {
    try (SemaforClient client = SemaforClient.connect(Server.address(args))) {
      int most = run(client, Server.fresh("jobs"), 3, 10);
      System.out.println("10 jobs done; at most " + most + " ran at once");
    }
  }

  /** Runs {@code jobs} jobs on as many threads, {@code limit} at a time; returns the most seen. */
  static int run(SemaforClient client, String name, int limit, int jobs) throws Exception {
    // a capacity gives every holder a numbered slot (1..limit, the lowest free first)
    NamedSemaphore slots = client.create(name, limit, SemaphoreOptions.DEFAULT.capacity(limit));
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      int job = i;
      Thread t =
          new Thread(
              () -> {
                try (Permit permit = slots.acquirePermit(1)) {
                  most.accumulateAndGet(running.incrementAndGet(), Math::max);
                  System.out.println("job " + job + " runs in slot " + permit.slots());
                  Thread.sleep(50); // the work
                  running.decrementAndGet();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    slots.delete();
    return most.get();
  }
}
