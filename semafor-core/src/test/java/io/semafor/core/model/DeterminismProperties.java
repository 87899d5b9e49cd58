package io.semafor.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Limits;
import io.semafor.core.Outcome;
import io.semafor.core.SemaphoreMachine;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The same command log always yields the same state: replayed on a fresh machine, and replayed from
 * a snapshot taken anywhere in the middle, byte for byte.
 */
class DeterminismProperties {
  private static final Limits LIMITS = MachineMatchesModelProperties.LIMITS;

  record Entry(long revision, long now, Command command) {}

  @Provide
  Arbitrary<List<Action>> scripts() {
    return Scripts.scripts(40, 250);
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void replayingALogGivesTheSameOutcomesAndTheSameState(
      @ForAll("scripts") List<Action> script, @ForAll @IntRange(max = 100) int splitPercent) {
    SemaphoreMachine original = new SemaphoreMachine(LIMITS);
    List<Entry> log = new ArrayList<>();
    List<Outcome> outcomes = new ArrayList<>();
    record(original, script, log, outcomes);

    SemaphoreMachine replayed = new SemaphoreMachine(LIMITS);
    for (int i = 0; i < log.size(); i++) {
      Entry e = log.get(i);
      assertThat(replayed.apply(e.revision(), e.now(), e.command()))
          .as("outcome %d of the replay", i)
          .isEqualTo(outcomes.get(i));
    }
    assertThat(snapshot(replayed)).isEqualTo(snapshot(original));

    int split = log.size() * splitPercent / 100;
    SemaphoreMachine before = new SemaphoreMachine(LIMITS);
    for (Entry e : log.subList(0, split)) {
      before.apply(e.revision(), e.now(), e.command());
    }
    byte[] taken = snapshot(before);
    SemaphoreMachine restored = restore(taken);
    assertThat(snapshot(restored))
        .as("a restored machine writes what it was read from")
        .isEqualTo(taken);
    for (int i = split; i < log.size(); i++) {
      Entry e = log.get(i);
      assertThat(restored.apply(e.revision(), e.now(), e.command()))
          .as("outcome %d after restoring a snapshot taken at %d", i, split)
          .isEqualTo(outcomes.get(i));
    }
    assertThat(snapshot(restored)).isEqualTo(snapshot(original));
    assertThat(restored.timers()).isEqualTo(original.timers());
    assertThat(restored.sessions()).isEqualTo(original.sessions());
  }

  /**
   * A backup taken after time passed without a command (issue 31): the restored machine starts at
   * the save's time, so every waiter timeout, WaitMany timeout and lease end has, counted from the
   * restore, exactly the time it had left at the save, whatever the gap.
   */
  @Property(edgeCases = EdgeCasesMode.NONE)
  void aSnapshotTakenAfterAnIdleGapKeepsEveryDeadlineAtItsTimeLeftThen(
      @ForAll("scripts") List<Action> script,
      @ForAll @IntRange(max = 100) int splitPercent,
      @ForAll @LongRange(max = 120_000_000_000L) long idleNanos) {
    SemaphoreMachine original = new SemaphoreMachine(LIMITS);
    List<Entry> log = new ArrayList<>();
    record(original, script, log, new ArrayList<>());
    SemaphoreMachine before = new SemaphoreMachine(LIMITS);
    for (Entry e : log.subList(0, log.size() * splitPercent / 100)) {
      before.apply(e.revision(), e.now(), e.command());
    }
    // a script may take log time to its very end (a fired "forever" timer): no further then
    long save = before.now() + Math.min(idleNanos, Long.MAX_VALUE - before.now());

    SemaphoreMachine restored = restore(snapshotAt(before, save));

    assertThat(restored.now()).isEqualTo(save);
    assertThat(timeLeft(restored.timers(), restored.now()))
        .isEqualTo(timeLeft(before.timers(), save));
    assertThat(restored.sessions()).isEqualTo(before.sessions());
  }

  private static List<String> timeLeft(List<Effect.ArmTimer> timers, long now) {
    List<String> out = new ArrayList<>();
    for (Effect.ArmTimer t : timers) {
      out.add(t.timer() + " " + (t.deadline() - now));
    }
    return out;
  }

  static byte[] snapshotAt(SemaphoreMachine machine, long now) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      machine.writeSnapshot(new DataOutputStream(bytes), now);
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void record(
      SemaphoreMachine machine, List<Action> script, List<Entry> log, List<Outcome> outcomes) {
    Driver driver = new Driver(true);
    List<Command> commands = new ArrayList<>(driver.setup());
    for (Command command : commands) {
      apply(machine, driver, command, log, outcomes);
    }
    for (Action action : script) {
      Command command = driver.next(action);
      if (command != null) {
        apply(machine, driver, command, log, outcomes);
      }
    }
  }

  private static void apply(
      SemaphoreMachine machine,
      Driver driver,
      Command command,
      List<Entry> log,
      List<Outcome> outcomes) {
    Entry entry = new Entry(driver.nextRevision(), driver.now(), command);
    Outcome outcome = machine.apply(entry.revision(), entry.now(), command);
    log.add(entry);
    outcomes.add(outcome);
    driver.observe(command, outcome);
  }

  static byte[] snapshot(SemaphoreMachine machine) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      machine.writeSnapshot(new DataOutputStream(bytes));
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static SemaphoreMachine restore(byte[] snapshot) {
    return restore(snapshot, LIMITS);
  }

  static SemaphoreMachine restore(byte[] snapshot, Limits limits) {
    try {
      return SemaphoreMachine.readSnapshot(
          limits, new DataInputStream(new ByteArrayInputStream(snapshot)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
