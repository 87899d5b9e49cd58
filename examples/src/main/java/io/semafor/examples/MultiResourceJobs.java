package io.semafor.examples;

import io.semafor.client.SemaforClient;
import io.semafor.client.Semop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Jobs that need several resources at once take them in one atomic {@code semop}: 2 CPUs and 1 GPU,
 * or nothing. Taking them one at a time can deadlock (each job holding what another waits for); an
 * all-or-nothing take cannot, and strict FIFO keeps every job's turn.
 */
public final class MultiResourceJobs {
  private MultiResourceJobs() {}

  public static void main(String[] args) throws Exception {
    try (SemaforClient client = SemaforClient.connect(Server.address(args))) {
      int most = run(client, Server.fresh("rig"), 8);
      System.out.println("8 jobs done; at most " + most + " ran at once (the GPU allows 2)");
    }
  }

  /** Runs {@code jobs} jobs on 4 CPUs and 2 GPUs; returns the most that ran at once. */
  static int run(SemaforClient client, String prefix, int jobs) throws Exception {
    String cpu = prefix + "/cpu";
    String gpu = prefix + "/gpu";
    client.create(cpu, 4);
    client.create(gpu, 2);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < jobs; i++) {
      int job = i;
      Thread t =
          new Thread(
              () -> {
                try {
                  Semop.Result taken =
                      client.semop().take(cpu, 2).owned().take(gpu, 1).owned().execute();
                  most.accumulateAndGet(running.incrementAndGet(), Math::max);
                  System.out.println(
                      "job " + job + " has 2 CPUs and a GPU (token " + taken.token() + ")");
                  Thread.sleep(30);
                  running.decrementAndGet();
                  client.semop().add(cpu, 2).owned().add(gpu, 1).owned().execute();
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
    client.semaphore(cpu).delete();
    client.semaphore(gpu).delete();
    return most.get();
  }
}
