package io.semafor.bench;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one grant with {@code waiters} requests queued on one FIFO semaphore (issue 2: it
 * must not grow with the queue). One operation is a closed loop step: an increment of 1 serves the
 * head of the queue, and the session that was served queues a new acquire at the tail,
 * acknowledging its grant, so the queue stays at {@code waiters}. Sessions hold up to 1000 waiters
 * each.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class GrantCostBenchmark {
  private static final int PER_SESSION = 1000;

  @Param({"1000", "100000", "1000000"})
  public int waiters;

  /**
   * {@code one}: every waiter is on the benchmarked semaphore. {@code spread}: the control; the
   * same waiters in the same sessions, but only one in a thousand on the benchmarked semaphore and
   * the rest on 999 others that are never served, so the queue is a thousandth as long while the
   * state is as large.
   */
  @Param({"one"})
  public String layout;

  private SemaphoreMachine machine;
  private final Name name = Name.of("queue");
  private long revision;
  private long producer;
  private long producerRequest;
  private long[] nextRequestId;
  private long firstSession;

  @Setup(Level.Trial)
  public void setUp() {
    int sessions = Math.max(1, waiters / PER_SESSION);
    Limits limits =
        Limits.DEFAULT
            .withMaxSessions(sessions + 10)
            .withMaxWaitersPerSession(PER_SESSION + 10)
            .withMaxUnackedReplies(PER_SESSION + 100);
    machine = new SemaphoreMachine(limits);
    producer = open();
    machine.apply(
        ++revision,
        0,
        new Command.Request(
            producer, ++producerRequest, new Operation.Create(name, 0, SemaphoreOptions.DEFAULT)));
    nextRequestId = new long[sessions];
    for (int s = 0; s < sessions; s++) {
      long id = open();
      if (s == 0) {
        firstSession = id;
      }
    }
    boolean spread = layout.equals("spread");
    for (int k = 1; spread && k < 1000; k++) {
      machine.apply(
          ++revision,
          0,
          new Command.Request(
              producer,
              ++producerRequest,
              List.of(producerRequest - 1),
              new Operation.Create(Name.of("other-" + k), 0, SemaphoreOptions.DEFAULT)));
    }
    for (int i = 0; i < waiters; i++) {
      int s = i % sessions;
      // spread: the first thousandth (one per session) on the benchmarked semaphore, which
      // then rotates through every session exactly as the one-queue layout does
      Name on = !spread || i < waiters / 1000 ? name : Name.of("other-" + (1 + i % 999));
      machine.apply(
          ++revision,
          0,
          new Command.Request(
              firstSession + s,
              ++nextRequestId[s],
              new Operation.Acquire(on, 1, Operation.FOREVER, false)));
    }
  }

  private long open() {
    Reply reply = machine.apply(++revision, 0, new Command.OpenSession(1_000_000_000_000L)).reply();
    return ((Result.SessionOpened) reply.result()).sessionId();
  }

  @Benchmark
  public Outcome grantHeadAndRequeue() {
    long id = ++producerRequest;
    Outcome served =
        machine.apply(
            ++revision,
            revision,
            new Command.Request(producer, id, List.of(id - 1), new Operation.Increment(name, 1)));
    Reply grant = ((Effect.Complete) served.effects().get(0)).reply();
    int s = (int) (grant.sessionId() - firstSession);
    return machine.apply(
        ++revision,
        revision,
        new Command.Request(
            grant.sessionId(),
            ++nextRequestId[s],
            List.of(grant.requestId()),
            new Operation.Acquire(name, 1, Operation.FOREVER, false)));
  }
}
