package io.semafor.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class LocalReplicatorTest {
  private static final Name X = Name.of("x");

  /** Records outcomes per session, and whether it was ever called concurrently. */
  static class Recorder implements ApplyListener<Object, Object, Object> {
    final ConcurrentHashMap<Long, List<Long>> requestIdsBySession = new ConcurrentHashMap<>();
    final List<Long> revisions = new ArrayList<>();
    final List<Long> logTimes = new ArrayList<>();
    final AtomicBoolean inside = new AtomicBoolean();
    volatile boolean overlapped;
    volatile @Nullable Reply lastRead;

    @Override
    public void applied(Command command, @Nullable Object context, Outcome outcome, long logTime) {
      if (!inside.compareAndSet(false, true)) {
        overlapped = true;
      }
      revisions.add(outcome.revision());
      logTimes.add(logTime);
      if (command instanceof Command.Request r) {
        requestIdsBySession
            .computeIfAbsent(r.sessionId(), k -> new ArrayList<>())
            .add(r.requestId());
      }
      inside.set(false);
    }

    @Override
    public void answered(Query query, @Nullable Object context, Reply reply, long logTime) {
      lastRead = reply;
    }
  }

  private static long open(
      LocalReplicator<Object, Object, Object> replicator, SemaphoreMachine machine) {
    replicator.submit(new Command.OpenSession(60_000_000_000L), null);
    return machine.sessionCount();
  }

  @Test
  void commandsFromManyThreadsAreAppliedOnceEachOneAtATimeInEachThreadsOrder()
      throws InterruptedException {
    SemaphoreMachine machine = new SemaphoreMachine();
    Recorder recorder = new Recorder();
    LocalReplicator<Object, Object, Object> replicator = new LocalReplicator<>(machine, recorder);
    int threads = 8;
    int perThread = 5_000;
    long[] sessions = new long[threads];
    for (int t = 0; t < threads; t++) {
      sessions[t] = open(replicator, machine);
    }
    replicator.submit(
        new Command.Request(sessions[0], 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)),
        null);
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long session = sessions[t];
      long firstId = t == 0 ? 2 : 1;
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < perThread; i++) {
                  long id = firstId + i;
                  replicator.submit(
                      new Command.Request(
                          session, id, List.of(id - 1), new Operation.Increment(X, 1)),
                      null);
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(60));
    }

    replicator.read(new Query.Get(X), null);
    Reply read = recorder.lastRead;
    assertThat(read).isNotNull();
    assertThat(((Result.SemaphoreStatus) read.result()).value())
        .isEqualTo((long) threads * perThread);
    assertThat(recorder.overlapped).isFalse();
    assertThat(recorder.revisions).isSorted().doesNotHaveDuplicates();
    assertThat(recorder.logTimes).isSorted();
    for (long session : sessions) {
      assertThat(recorder.requestIdsBySession.get(session)).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void aReadSeesEverythingTheSameThreadSubmittedBeforeIt() {
    SemaphoreMachine machine = new SemaphoreMachine();
    Recorder recorder = new Recorder();
    LocalReplicator<Object, Object, Object> replicator = new LocalReplicator<>(machine, recorder);
    long session = open(replicator, machine);
    replicator.submit(
        new Command.Request(session, 1, new Operation.Create(X, 5, SemaphoreOptions.DEFAULT)),
        null);
    replicator.read(new Query.Get(X), null);
    Reply read = recorder.lastRead;
    assertThat(read).isNotNull();
    assertThat(((Result.SemaphoreStatus) read.result()).value()).isEqualTo(5);
  }

  @Test
  void logTimeIsTheClockCountedFromTheMachinesLastTime() {
    AtomicLong clock = new AtomicLong(1_000_000);
    SemaphoreMachine machine = new SemaphoreMachine();
    Recorder recorder = new Recorder();
    LocalReplicator<Object, Object, Object> replicator =
        new LocalReplicator<>(machine, recorder, clock::get);
    clock.addAndGet(250);
    assertThat(replicator.logTime()).isEqualTo(250);
    replicator.submit(new Command.OpenSession(1_000), null);
    assertThat(machine.now()).isEqualTo(250);
  }

  @Test
  void aBackupTakenAfterAnIdleGapRestoresEveryDeadlineWithTheTimeItHadLeftAtTheSave()
      throws Exception {
    long second = 1_000_000_000L;
    AtomicLong clock = new AtomicLong(5 * second);
    SemaphoreMachine machine = new SemaphoreMachine();
    List<SnapshotFile.Image> images = new ArrayList<>();
    Recorder recorder =
        new Recorder() {
          @Override
          public void snapshotTaken(@Nullable Object context, SnapshotFile.Image image) {
            images.add(image);
          }
        };
    LocalReplicator<Object, Object, Object> original =
        new LocalReplicator<>(machine, recorder, clock::get);
    long session = open(original, machine);
    original.submit(
        new Command.Request(session, 1, new Operation.Create(X, 1, SemaphoreOptions.DEFAULT)),
        null);
    original.submit(
        new Command.Request(session, 2, new Operation.AcquireLease(X, 1, 40 * second, 0)), null);
    long leaseEnd = machine.timers().get(0).deadline();
    clock.addAndGet(20 * second); // 20 s without a command: the lease has 20 s left
    original.snapshot(null);

    SemaphoreMachine restored =
        SnapshotFile.read(
                Arrays.copyOf(images.get(0).bytes(), images.get(0).length()), machine.limits())
            .machine();
    AtomicLong laterClock = new AtomicLong(900 * second); // another process, much later
    LocalReplicator<Object, Object, Object> restoredNode =
        new LocalReplicator<>(restored, new Recorder(), laterClock::get);

    assertThat(restored.timers().get(0).deadline()).isEqualTo(leaseEnd);
    assertThat(leaseEnd - restoredNode.logTime()).isEqualTo(20 * second);
  }

  @Test
  void afterCloseNothingIsAccepted() {
    LocalReplicator<Object, Object, Object> replicator =
        new LocalReplicator<>(new SemaphoreMachine(), new Recorder());
    replicator.close();
    assertThatThrownBy(() -> replicator.submit(new Command.OpenSession(1_000), null))
        .isInstanceOf(Replicator.ReplicatorClosedException.class);
  }

  @Test
  void aReadAskedWhileABatchIsEndingIsAnsweredAfterThatBatchNotInsideIt() {
    SemaphoreMachine machine = new SemaphoreMachine();
    List<String> calls = new ArrayList<>();
    List<LocalReplicator<Object, Object, Object>> self = new ArrayList<>();
    ApplyListener<Object, Object, Object> listener =
        new ApplyListener<Object, Object, Object>() {
          @Override
          public void applied(
              Command command, @Nullable Object context, Outcome outcome, long logTime) {
            calls.add("applied");
          }

          @Override
          public void answered(Query query, @Nullable Object context, Reply reply, long logTime) {
            calls.add("answered " + context);
          }

          @Override
          public void batchEnded() {
            calls.add("batch ended (start)");
            if (calls.size() < 10) {
              // as a connection that became writable while its answers were written asks for more
              self.get(0).read(new Query.Get(X), "asked while ending");
            }
            calls.add("batch ended (end)");
          }
        };
    LocalReplicator<Object, Object, Object> replicator = new LocalReplicator<>(machine, listener);
    self.add(replicator);

    replicator.submit(new Command.OpenSession(60_000_000_000L), null);

    assertThat(calls.subList(0, 6))
        .containsExactly(
            "applied",
            "batch ended (start)",
            "batch ended (end)",
            "answered asked while ending",
            "batch ended (start)",
            "batch ended (end)");
  }
}
