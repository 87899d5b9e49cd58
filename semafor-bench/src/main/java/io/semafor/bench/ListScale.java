package io.semafor.bench;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * How long reads hold the apply thread with many semaphores (issue 12, point 6): one {@code list}
 * page, what a {@code /metrics} scrape asks of the apply thread, one {@code inspect}. It times the
 * state machine's {@code query} directly, as the apply thread runs it, with no network.
 *
 * <p>Builds {@code N} semaphores named {@code sem-} and 12 digits, created in a scrambled order (so
 * the name order is not built by appending), then times each read repeatedly and prints the median
 * and the worst:
 *
 * <ul>
 *   <li>{@code list prefix}: 1,000 names with the prefix {@code sem-00000050} (10,000 match);
 *   <li>{@code list cursor}: 1,000 names with the prefix {@code sem-} after {@code
 *       sem-000000400000}, the middle of a paging walk;
 *   <li>{@code scrape list}: the read a scrape starts with, the first 1,000 names with no prefix;
 *   <li>{@code scrape gets}: then 1,000 {@code get}s, one per name (each its own read in a server,
 *       so this is their sum, not one hold);
 *   <li>{@code inspect}: the default page of a semaphore with 2,000 waiters (1,000 shown).
 * </ul>
 *
 * <p>Run: {@code java -Xmx12g -cp semafor-bench/target/benchmarks.jar io.semafor.bench.ListScale
 * 1000000 10000000}. Uses only the public API, so the same source builds against older versions of
 * the core for before/after figures.
 */
public final class ListScale {
  private ListScale() {}

  public static void main(String[] args) {
    System.out.printf(
        Locale.ROOT,
        "JVM %s, %s%n",
        Runtime.version(),
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    for (String arg : args.length == 0 ? new String[] {"1000000"} : args) {
      run(Integer.parseInt(arg.replace("_", "")));
    }
  }

  private static void run(int count) {
    SemaphoreMachine machine = new SemaphoreMachine(Limits.DEFAULT);
    Driver d = new Driver(machine);
    long started = System.nanoTime();
    for (long i = 0; i < count; i++) {
      long k = (i * 999_983L) % count; // 999,983 is prime, so coprime with count: a permutation
      d.call(new Operation.Create(name(k), 1, SemaphoreOptions.DEFAULT));
    }
    Name contended = name(7);
    Driver waiters = new Driver(machine);
    for (int i = 0; i < 2_000; i++) {
      waiters.send(new Operation.Acquire(contended, 2, Operation.FOREVER, false));
    }
    System.out.printf(
        Locale.ROOT,
        "%,d semaphores built in %.1f s%n",
        machine.semaphoreCount(),
        (System.nanoTime() - started) / 1e9);

    time(
        "list prefix (1,000 of 10,000)",
        () -> machine.query(new Query.ListNames(Name.of("sem-00000050"), 1_000, null)),
        1_000);
    time(
        "list cursor (1,000 after the middle)",
        () ->
            machine.query(
                new Query.ListNames(Name.of("sem-"), 1_000, name(count / 2L / 1000 * 1000))),
        1_000);
    time(
        "scrape list (first 1,000, no prefix)",
        () -> machine.query(new Query.ListNames(Name.of(""), 1_000, null)),
        1_000);
    Result.NameList first =
        (Result.NameList) machine.query(new Query.ListNames(Name.of(""), 1_000, null)).result();
    time(
        "scrape gets (1,000 gets, summed)",
        () -> {
          Reply last = null;
          for (Name n : first.names()) {
            last = machine.query(new Query.Get(n));
          }
          return last;
        },
        -1);
    time(
        "inspect (2,000 waiters, 1,000 shown)",
        () -> machine.query(new Query.Inspect(contended)),
        -1);
  }

  /**
   * Times {@code read} until 40 samples or about 10 s have passed, after untimed warm-up calls (20,
   * or as many as fit in 2 s), and prints the median and the worst in microseconds.
   */
  private static void time(String what, Supplier<Reply> read, int expectNames) {
    long warm = System.nanoTime() + 2_000_000_000L;
    for (int i = 0; i < 20 && (i == 0 || System.nanoTime() < warm); i++) {
      Reply unused = read.get();
    }
    List<Long> samples = new ArrayList<>();
    long deadline = System.nanoTime() + 10_000_000_000L;
    Reply reply = null;
    while (samples.size() < 40 && (samples.size() < 3 || System.nanoTime() < deadline)) {
      long t0 = System.nanoTime();
      reply = read.get();
      samples.add(System.nanoTime() - t0);
    }
    if (expectNames > 0
        && !(reply != null
            && reply.result() instanceof Result.NameList names
            && names.names().size() == expectNames)) {
      throw new IllegalStateException(what + ": unexpected answer " + reply);
    }
    long[] s = samples.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(s);
    System.out.printf(
        Locale.ROOT,
        "  %-40s median %,12.1f us   max %,12.1f us   (%d samples)%n",
        what,
        s[s.length / 2] / 1e3,
        s[s.length - 1] / 1e3,
        s.length);
  }

  /** Names of exactly 16 ASCII bytes: "sem-" and 12 digits. */
  static Name name(long i) {
    return Name.of(String.format(Locale.ROOT, "sem-%012d", i));
  }

  /** One session that acknowledges each reply with its next request. */
  private static final class Driver {
    private final SemaphoreMachine machine;
    private final long session;
    private long requestId;
    private static long revision;

    Driver(SemaphoreMachine machine) {
      this.machine = machine;
      Reply r = machine.apply(++revision, 0, new Command.OpenSession(Long.MAX_VALUE / 4)).reply();
      session = ((Result.SessionOpened) r.result()).sessionId();
    }

    void call(Operation op) {
      send(op);
    }

    void send(Operation op) {
      long id = ++requestId;
      machine.apply(++revision, 0, new Command.Request(session, id, List.of(id - 1), op));
    }
  }
}
