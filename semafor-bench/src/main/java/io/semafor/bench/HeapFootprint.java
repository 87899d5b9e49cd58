package io.semafor.bench;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import org.openjdk.jol.info.ClassLayout;

/**
 * Heap bytes per semaphore (16-byte names) and per waiter, measured as the growth of the live heap
 * after full collections while the machine holds them, and cross-checked with JOL's object layouts.
 * Issue 2 goals: at most 100 B per semaphore beyond its name, at most 200 B per waiter.
 *
 * <p>Run: {@code java -Xmx8g -cp semafor-bench/target/benchmarks.jar io.semafor.bench.HeapFootprint
 * [semaphores] [waiters]} (defaults: 10,000,000 and 1,000,000).
 */
public final class HeapFootprint {
  private HeapFootprint() {}

  public static void main(String[] args) throws Exception {
    int semaphores = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
    int waiters = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    System.out.printf(
        Locale.ROOT,
        "JVM %s, %s%n",
        Runtime.version(),
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    printLayouts();
    semaphores(semaphores);
    waiters(waiters);
  }

  private static void printLayouts() throws ClassNotFoundException {
    for (String type : List.of("Semaphore", "SingleWaiter", "Name")) {
      Class<?> c = Class.forName("io.semafor.core." + type);
      System.out.printf(
          Locale.ROOT,
          "JOL: %-13s instance size %d B%n",
          type,
          ClassLayout.parseClass(c).instanceSize());
    }
    System.out.printf(
        Locale.ROOT,
        "JOL: byte[16]        size %d B%n",
        ClassLayout.parseInstance(new byte[16]).instanceSize());
  }

  private static void semaphores(int count) {
    Driver d = new Driver(Limits.DEFAULT);
    long before = liveHeap();
    for (int i = 0; i < count; i++) {
      d.call(new Operation.Create(Name.ofBytes(name16(i)), 1, SemaphoreOptions.DEFAULT));
    }
    long after = liveHeap();
    double perSemaphore = (after - before) / (double) count;
    long nameBytes = ClassLayout.parseInstance(new byte[16]).instanceSize();
    System.out.printf(
        Locale.ROOT,
        "semaphores: %,d with 16-byte names: %,d B live => %.1f B each, %.1f B beyond the"
            + " name's %d-byte array (goal <= 100)%n",
        d.machine.semaphoreCount(),
        after - before,
        perSemaphore,
        perSemaphore - nameBytes,
        nameBytes);
    d.keep();
  }

  private static void waiters(int count) {
    int perSession = 4096;
    int sessions = (count + perSession - 1) / perSession;
    Driver d = new Driver(Limits.DEFAULT.withMaxSessions(sessions + 10));
    Name name = Name.of("contended");
    d.call(new Operation.Create(name, 0, SemaphoreOptions.DEFAULT));
    long[] ids = new long[sessions];
    for (int s = 0; s < sessions; s++) {
      ids[s] = d.open();
    }
    long before = liveHeap();
    for (int i = 0; i < count; i++) {
      int s = i / perSession;
      d.machine.apply(
          ++d.revision,
          0,
          new Command.Request(
              ids[s],
              i % perSession + 1,
              new Operation.Acquire(name, 1, Operation.FOREVER, false)));
    }
    long after = liveHeap();
    Result.SemaphoreStatus status =
        (Result.SemaphoreStatus) d.machine.query(new io.semafor.core.Query.Get(name)).result();
    System.out.printf(
        Locale.ROOT,
        "waiters: %,d queued on one semaphore: %,d B live => %.1f B each (goal <= 200)%n",
        status.waiters(),
        after - before,
        (after - before) / (double) count);
    d.keep();
  }

  /** Names of exactly 16 ASCII bytes: "sem-" and 12 digits. */
  static byte[] name16(int i) {
    byte[] b =
        String.format(Locale.ROOT, "sem-%012d", i)
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    if (b.length != 16) {
      throw new IllegalStateException("name of " + b.length + " bytes");
    }
    return b;
  }

  private static long liveHeap() {
    long last = Long.MAX_VALUE;
    for (int i = 0; i < 6; i++) {
      System.gc();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (Math.abs(used - last) < 64 * 1024) {
        return used;
      }
      last = used;
    }
    return last;
  }

  /** Drives a machine from one session that acknowledges each reply with its next request. */
  private static final class Driver {
    final SemaphoreMachine machine;
    long revision;
    private final long session;
    private long requestId;

    Driver(Limits limits) {
      machine = new SemaphoreMachine(limits);
      session = open();
    }

    long open() {
      Reply r = machine.apply(++revision, 0, new Command.OpenSession(Long.MAX_VALUE / 4)).reply();
      return ((Result.SessionOpened) r.result()).sessionId();
    }

    Outcome call(Operation op) {
      long id = ++requestId;
      return machine.apply(++revision, 0, new Command.Request(session, id, List.of(id - 1), op));
    }

    /** Keeps the machine reachable until measured. */
    void keep() {
      if (machine.revision() < 0) {
        throw new AssertionError();
      }
    }
  }
}
