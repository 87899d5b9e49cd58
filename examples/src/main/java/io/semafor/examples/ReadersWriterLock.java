package io.semafor.examples;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A readers-writer lock in which a writer is never starved: the lock is a semaphore of N permits, a
 * reader takes 1 and a writer takes all N at once. Under FIFO a waiting writer holds back every
 * reader that comes after it (docs/semantics.md#fifo), so the readers already in finish, the writer
 * gets in, and then the readers resume — however many keep arriving.
 */
public final class ReadersWriterLock {
  private ReadersWriterLock() {}

  static final int READERS_MAX = 100;

  public static void main(String[] args) throws Exception {
    try (SemaforClient client = SemaforClient.connect(Server.address(args))) {
      Duration waited = run(client, Server.fresh("rw"), 4, Duration.ofSeconds(2));
      System.out.println("the writer waited " + waited.toMillis() + " ms among busy readers");
    }
  }

  /**
   * Keeps {@code readers} threads reading back to back (each read overlaps others), lets a writer
   * in half-way, and returns how long the writer waited.
   */
  static Duration run(SemaforClient client, String name, int readers, Duration length)
      throws Exception {
    NamedSemaphore lock = client.create(name, READERS_MAX);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger reads = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int r = 0; r < readers; r++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    Permit read = lock.acquirePermit(1);
                    try {
                      reads.incrementAndGet();
                      Thread.sleep(20); // reading
                    } finally {
                      read.close();
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      t.start();
      threads.add(t);
    }
    Thread.sleep(length.toMillis() / 2);
    long asked = System.nanoTime();
    Duration waited;
    try (Permit write = lock.acquirePermit(READERS_MAX)) {
      waited = Duration.ofNanos(System.nanoTime() - asked);
      System.out.println(
          "writer in after "
              + waited.toMillis()
              + " ms with fencing token "
              + write.token()
              + "; "
              + reads
              + " reads so far");
      Thread.sleep(50); // writing, alone
    }
    Thread.sleep(length.toMillis() / 2);
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    System.out.println(reads + " reads in all");
    lock.delete();
    return waited;
  }
}
