package io.semafor.examples;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scheduling work with a semaphore at 0: the producer puts a task where the workers can find it and
 * increments the semaphore; each worker decrements it, waiting while it is 0, and takes one task
 * per permit. (Here the tasks sit in a queue in this process; across machines they would be in a
 * database or a bucket, and the semaphore says how many are ready.)
 */
public final class ProducerWorkers {
  private ProducerWorkers() {}

  private static final String STOP = "stop";

  public static void main(String[] args) throws Exception {
    try (SemaforClient client = SemaforClient.connect(Server.address(args))) {
      int done = run(client, Server.fresh("ready"), 3, 20);
      System.out.println(done + " tasks done by 3 workers");
    }
  }

  /** Produces {@code tasks} tasks for {@code workers} workers; returns how many were done. */
  static int run(SemaforClient client, String name, int workers, int tasks) throws Exception {
    NamedSemaphore ready = client.create(name, 0);
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
    AtomicInteger done = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int worker = w;
      Thread t =
          new Thread(
              () -> {
                try {
                  while (true) {
                    ready.acquire(1); // waits while nothing is ready
                    String task = queue.poll();
                    if (task == null || task.equals(STOP)) {
                      return;
                    }
                    System.out.println("worker " + worker + " does " + task);
                    done.incrementAndGet();
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      t.start();
      threads.add(t);
    }
    for (int i = 0; i < tasks; i++) {
      queue.add("task " + i);
      ready.increment(1);
    }
    for (int w = 0; w < workers; w++) {
      queue.add(STOP);
      ready.increment(1);
    }
    for (Thread t : threads) {
      t.join();
    }
    ready.delete();
    return done.get();
  }
}
