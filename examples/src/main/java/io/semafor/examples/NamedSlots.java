package io.semafor.examples;

import io.semafor.SemaphoreOptions;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A pool of numbered slots, as SQL Server's app locks are used for "at most four report windows": a
 * semaphore with capacity 4 gives each holder a slot number (the lowest free), one per session; a
 * fifth session waits until a slot is freed, and a slot comes back when its holder ends or dies.
 */
public final class NamedSlots {
  private NamedSlots() {}

  public static void main(String[] args) throws Exception {
    String server = Server.address(args);
    try (SemaforClient admin = SemaforClient.connect(server)) {
      List<Long> slots = run(server, admin, Server.fresh("windows"), 4);
      System.out.println("slots handed out: " + slots);
    }
  }

  /**
   * Opens {@code size} + 1 sessions on a pool of {@code size}; returns the slots in grant order.
   */
  static List<Long> run(String server, SemaforClient admin, String name, int size)
      throws Exception {
    NamedSemaphore pool =
        admin.create(name, size, SemaphoreOptions.DEFAULT.capacity(size).maxPerSession(1));
    List<SemaforClient> sessions = new ArrayList<>();
    List<Long> handedOut = new ArrayList<>();
    try {
      List<Permit> held = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        SemaforClient window = SemaforClient.connect(server);
        sessions.add(window);
        Permit permit = window.semaphore(name).acquirePermit(1);
        handedOut.add(permit.slots().get(0));
        held.add(permit);
        System.out.println("window " + i + " got slot " + permit.slots().get(0));
      }
      SemaforClient late = SemaforClient.connect(server);
      sessions.add(late);
      Permit none = late.semaphore(name).tryAcquirePermit(1, Duration.ofMillis(200));
      System.out.println("a fifth window " + (none == null ? "waits: the pool is full" : "got in"));
      held.get(1).close(); // the second window closes
      Permit freed = late.semaphore(name).acquirePermit(1);
      handedOut.add(freed.slots().get(0));
      System.out.println("the fifth window got slot " + freed.slots().get(0));
    } finally {
      for (SemaforClient c : sessions) {
        c.close();
      }
    }
    pool.delete();
    return handedOut;
  }
}
