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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Apply throughput of an uncontended decrement+increment pair on one thread (issue 2 goal: at least
 * 5 million pairs/s). A pair is two commands as a client sends them: a decrement that acknowledges
 * the previous increment's reply, and an increment that acknowledges the decrement's, so every
 * grant is consumed as in a real loop.
 *
 * <ul>
 *   <li>{@code applyPrebuilt}: the machine alone, on commands decoded beforehand (in a server the
 *       decoding happens on the I/O threads, not on the apply thread). This is the goal's figure.
 *   <li>{@code buildAndApply}: also builds each command object, sharing one {@code Name};
 *   <li>{@code buildAndApplyFreshName}: also decodes the name from bytes for every command.
 *   <li>{@code createDelete}: a create and a delete of a name not yet there, among {@link
 *       Populated#COUNT} semaphores, at a random place in name order: what keeping the names
 *       ordered for {@code list} costs (docs/decisions/0024-ordered-names.md). A pair here is the
 *       create and the delete.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ApplyBenchmark {
  private static final byte[] NAME_BYTES = "jobs/printer-0001".getBytes(StandardCharsets.UTF_8);
  private static final int BATCH = 1_000;

  private SemaphoreMachine machine;
  private Name name;
  private long session;
  private long revision;
  private long requestId;

  @Setup(Level.Trial)
  public void setUp() {
    machine = new SemaphoreMachine(Limits.DEFAULT);
    Reply opened = machine.apply(++revision, 0, new Command.OpenSession(10_000_000_000L)).reply();
    session = ((Result.SessionOpened) opened.result()).sessionId();
    name = Name.ofBytes(NAME_BYTES);
    machine.apply(
        ++revision,
        0,
        new Command.Request(
            session, ++requestId, new Operation.Create(name, 1, SemaphoreOptions.DEFAULT)));
  }

  /** The next batch of pairs, decoded untimed before each invocation as the I/O threads would. */
  @State(Scope.Thread)
  public static class Decoded {
    final Command[] batch = new Command[2 * BATCH];

    @Setup(Level.Invocation)
    public void decode(ApplyBenchmark bench) {
      long id = bench.requestId;
      for (int i = 0; i < 2 * BATCH; i += 2) {
        batch[i] = bench.decrement(++id, Name.ofBytes(NAME_BYTES));
        batch[i + 1] = bench.increment(++id, Name.ofBytes(NAME_BYTES));
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void applyPrebuilt(Decoded decoded, Blackhole sink) {
    for (Command command : decoded.batch) {
      sink.consume(machine.apply(++revision, revision, command));
    }
    requestId += 2 * BATCH;
  }

  @Benchmark
  public Outcome buildAndApply() {
    machine.apply(++revision, revision, decrement(++requestId, name));
    return machine.apply(++revision, revision, increment(++requestId, name));
  }

  @Benchmark
  public Outcome buildAndApplyFreshName() {
    machine.apply(++revision, revision, decrement(++requestId, Name.ofBytes(NAME_BYTES)));
    return machine.apply(++revision, revision, increment(++requestId, Name.ofBytes(NAME_BYTES)));
  }

  private Command decrement(long id, Name n) {
    return new Command.Request(
        session, id, List.of(id - 1), new Operation.Decrement(n, 1, 0, false));
  }

  private Command increment(long id, Name n) {
    return new Command.Request(session, id, List.of(id - 1), new Operation.Increment(n, 1));
  }

  /** A machine holding {@link #COUNT} semaphores, and names not among them to create and delete. */
  @State(Scope.Thread)
  public static class Populated {
    /** Semaphores that exist throughout. */
    static final int COUNT = 1_000_000;

    SemaphoreMachine machine;
    long session;
    long revision;
    long requestId;
    final Name[] fresh = new Name[4096];
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      machine = new SemaphoreMachine(Limits.DEFAULT);
      Reply opened =
          machine.apply(++revision, 0, new Command.OpenSession(Long.MAX_VALUE / 4)).reply();
      session = ((Result.SessionOpened) opened.result()).sessionId();
      // even numbers exist, created in a scrambled order; odd ones are created and deleted
      for (long i = 0; i < COUNT; i++) {
        long k = (i * 999_983L) % COUNT;
        call(new Operation.Create(name(2 * k), 1, SemaphoreOptions.DEFAULT));
      }
      java.util.Random random = new java.util.Random(42);
      for (int i = 0; i < fresh.length; i++) {
        fresh[i] = name(2L * random.nextInt(COUNT) + 1);
      }
    }

    static Name name(long n) {
      return Name.of(String.format(java.util.Locale.ROOT, "sem-%012d", n));
    }

    Outcome call(Operation op) {
      long id = ++requestId;
      return machine.apply(
          ++revision, revision, new Command.Request(session, id, List.of(id - 1), op));
    }
  }

  @Benchmark
  public Outcome createDelete(Populated p) {
    Name n = p.fresh[p.next++ & (p.fresh.length - 1)];
    p.call(new Operation.Create(n, 1, SemaphoreOptions.DEFAULT));
    return p.call(new Operation.Delete(n));
  }
}
