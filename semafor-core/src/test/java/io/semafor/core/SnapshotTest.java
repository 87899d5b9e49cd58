package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Snapshots: the whole state, written and read back equal, including queues and counters. */
class SnapshotTest {
  private final Harness h = new Harness();
  private final TestClient admin = h.connect();
  private final TestClient holder = h.connect();
  private final TestClient waiter = h.connect();

  /** A state with something of every kind in it. */
  private void buildRichState() {
    admin.create("plain", 2);
    admin.create("slots", 3, SemaphoreOptions.withCapacity(3).maxPerSession(2));
    admin.create("barging", 0, SemaphoreOptions.withCapacity(9).policy(Policy.BARGING));
    for (String name : List.of("w1", "w2", "w3", "gone")) {
      admin.create(name, 0);
    }
    holder.acquireOwned("slots", 2, 0); // slots 1 and 2, at the per-session limit
    holder.acquireLease("plain", 1, 30 * SECOND, 0); // delivered once acknowledged
    holder.acknowledge();
    holder.acknowledging = false;
    holder.acquireLease("slots", 1, 30 * SECOND, 0); // undelivered, slot 3
    holder.decrement("plain", 1, 0); // non-owned, in transit
    holder.semop(0, SemopOp.of("barging", 2).withOwned()); // negative adjustment
    waiter.acquireOwned("slots", 1, 5 * SECOND);
    waiter.awaitZero("barging", Operation.FOREVER);
    waiter.acquireLease("plain", 3, 10 * SECOND, Operation.FOREVER);
    waiter.semop(
        Operation.FOREVER, SemopOp.of("plain", -1), SemopOp.of("barging", 0), SemopOp.of("w3", 1));
    waiter.decrement("plain", 2, Operation.FOREVER);
    // WaitMany: w3 reported first so the next report starts after it; w1, w2 pending; gone deleted
    admin.addToWaitMany("w1", 2);
    admin.addToWaitMany("w2", 1);
    admin.addToWaitMany("w3", 1);
    admin.addToWaitMany("gone", 1);
    h.connect().increment("w3", 1);
    admin.call(new Operation.WaitMany(0, 0));
    admin.delete("gone");
    admin.call(new Operation.AddToWaitMany(1, Name.of("w2"), 5));
    admin.send(new Operation.WaitMany(1, 20 * SECOND));
    h.advance(2 * SECOND);
  }

  private static byte[] snapshot(SemaphoreMachine machine) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    machine.writeSnapshot(new DataOutputStream(bytes));
    return bytes.toByteArray();
  }

  private static byte[] snapshotAt(SemaphoreMachine machine, long now) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    machine.writeSnapshot(new DataOutputStream(bytes), now);
    return bytes.toByteArray();
  }

  /** Each timer's time left at log time {@code now}, as an edge arms it (deadline - now). */
  private static Map<TimerKey, Long> timeLeft(List<Effect.ArmTimer> timers, long now) {
    Map<TimerKey, Long> left = new LinkedHashMap<>();
    for (Effect.ArmTimer t : timers) {
      left.put(t.timer(), t.deadline() - now);
    }
    return left;
  }

  private static SemaphoreMachine restore(byte[] bytes) throws IOException {
    return SemaphoreMachine.readSnapshot(
        Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes)));
  }

  @Test
  void aRestoredMachineWritesExactlyTheSnapshotItWasReadFrom() throws IOException {
    buildRichState();
    byte[] taken = snapshot(h.machine);
    assertThat(snapshot(restore(taken))).isEqualTo(taken);
  }

  @Test
  void aRestoredMachineAnswersQueriesAndListsTimersAndSessionsAsTheOriginal() throws IOException {
    buildRichState();
    SemaphoreMachine restored = restore(snapshot(h.machine));
    for (String name : List.of("plain", "slots", "barging", "w1", "w2", "w3", "gone")) {
      Query inspect = new Query.Inspect(Name.of(name));
      assertThat(restored.query(inspect)).isEqualTo(h.machine.query(inspect));
    }
    assertThat(restored.timers()).isEqualTo(h.machine.timers());
    assertThat(restored.sessions()).isEqualTo(h.machine.sessions());
    assertThat(restored.revision()).isEqualTo(h.machine.revision());
    assertThat(restored.now()).isEqualTo(h.machine.now());
  }

  @Test
  void aRestoredMachineBehavesExactlyAsTheOriginalFromThenOn() throws IOException {
    buildRichState();
    SemaphoreMachine restored = restore(snapshot(h.machine));
    List<Command> next =
        List.of(
            new Command.Request(admin.sessionId, 90, new Operation.Increment(Name.of("w1"), 1)),
            new Command.Request(admin.sessionId, 91, new Operation.Increment(Name.of("w2"), 3)),
            new Command.Request(admin.sessionId, 92, new Operation.Increment(Name.of("w3"), 1)),
            new Command.Request(
                admin.sessionId, 93, new Operation.AddToWaitMany(0, Name.of("w3"), 1)),
            new Command.Request(admin.sessionId, 94, new Operation.WaitMany(0, 0)),
            new Command.Request(admin.sessionId, 95, new Operation.Increment(Name.of("plain"), 4)),
            new Command.ExpireWaiter(waiter.sessionId, waiter.lastRequestId() - 4),
            new Command.Request(holder.sessionId, 96, new Operation.Release(Name.of("slots"), 1)),
            new Command.ExpireSession(holder.sessionId),
            new Command.Request(
                admin.sessionId, 97, new Operation.Increment(Name.of("barging"), 3)),
            new Command.ExpireLease(1),
            new Command.Request(admin.sessionId, 98, new Operation.Delete(Name.of("plain"))));
    long revision = h.revision();
    long now = h.now() + 40 * SECOND;
    for (Command command : next) {
      revision++;
      assertThat(restored.apply(revision, now, command))
          .as("after %s", command)
          .isEqualTo(h.machine.apply(revision, now, command));
    }
    assertThat(snapshot(restored)).isEqualTo(snapshot(h.machine));
  }

  @Test
  void aSnapshotTakenAfterAnIdleGapGivesEveryDeadlineTheTimeItHadLeftAtTheSave()
      throws IOException {
    buildRichState(); // every command at log time 0; waiter 5 s, WaitMany 20 s, leases 30 s
    h.advance(1 * SECOND); // 3 s without a command
    long save = h.now();
    SemaphoreMachine restored = restore(snapshotAt(h.machine, save));

    // a restore continues log time from the snapshot's: the time left is counted from there
    assertThat(restored.now()).isEqualTo(save);
    Map<TimerKey, Long> left = timeLeft(restored.timers(), restored.now());
    assertThat(left).isEqualTo(timeLeft(h.machine.timers(), save));
    assertThat(left.values()).contains(2 * SECOND, 17 * SECOND, 27 * SECOND);
    assertThat(left.values()).doesNotContain(30 * SECOND); // the idle 3 s are not given back
  }

  @Test
  void aRestoredLeaseEndsWhenTheTimeItHadLeftAtTheSavePasses() throws IOException {
    admin.create("plain", 1);
    holder.acquireLease("plain", 1, 30 * SECOND, 0);
    holder.acknowledge();
    h.advance(20 * SECOND); // no command for 20 s: 10 s left
    SemaphoreMachine restored = restore(snapshotAt(h.machine, h.now()));
    TimerKey end = restored.timers().get(0).timer();
    long permit = ((TimerKey.LeaseEnd) end).permitId();

    long restoredAt = restored.now();
    assertThat(expireLease(restored, h.revision() + 1, restoredAt + 10 * SECOND - 1, permit))
        .isEqualTo(new Result.Expiry(false));
    assertThat(expireLease(restored, h.revision() + 2, restoredAt + 10 * SECOND, permit))
        .isEqualTo(new Result.Expiry(true));
  }

  private static Result expireLease(SemaphoreMachine m, long revision, long now, long permit) {
    Reply reply = m.apply(revision, now, new Command.ExpireLease(permit)).reply();
    assertThat(reply).isNotNull();
    return java.util.Objects.requireNonNull(reply).result();
  }

  @Test
  void aSnapshotIsNeverDatedBeforeTheLastCommandAndDoesNotChangeTheMachine() throws IOException {
    buildRichState();
    long last = h.machine.now();
    byte[] taken = snapshotAt(h.machine, last - 5 * SECOND);
    assertThat(taken).isEqualTo(snapshot(h.machine));
    snapshotAt(h.machine, last + 5 * SECOND);
    assertThat(h.machine.now()).isEqualTo(last);
    byte[] later = snapshotAt(h.machine, last + 5 * SECOND);
    assertThat(snapshot(restore(later)))
        .as("a restored machine writes what it was read from")
        .isEqualTo(later);
  }

  @Test
  void somethingThatIsNotASnapshotIsRefused() {
    assertThatThrownBy(() -> restore(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not a Semafor snapshot");
  }

  @Test
  void aTruncatedSnapshotIsRefused() throws IOException {
    buildRichState();
    byte[] taken = snapshot(h.machine);
    assertThatThrownBy(() -> restore(Arrays.copyOf(taken, taken.length / 2)))
        .isInstanceOf(EOFException.class);
  }

  @Test
  void anEmptyMachineRoundTrips() throws IOException {
    SemaphoreMachine empty = new SemaphoreMachine();
    assertThat(snapshot(restore(snapshot(empty)))).isEqualTo(snapshot(empty));
  }
}
