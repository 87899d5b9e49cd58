package io.semafor.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Limits;
import io.semafor.core.Outcome;
import io.semafor.core.SemaphoreMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Grants handed out in slices (one waiter per command here, the most slicing there can be) are the
 * grants of one step: the same replies in the same order, the same state; and a machine with grants
 * pending is as deterministic as any, restored from a snapshot taken mid-hand-out included.
 */
class SlicedGrantsProperties {
  private static final Limits WHOLE = MachineMatchesModelProperties.LIMITS;
  private static final Limits SLICED = WHOLE.withGrantsPerCommand(1);
  private static final Effect PENDING = new Effect.GrantsPending();

  @Provide
  Arbitrary<List<Action>> scripts() {
    return Scripts.scripts(40, 250);
  }

  /** The commands a leader would apply: the script's, and a ContinueGrants where one is due. */
  private static List<DeterminismProperties.Entry> slicedLog(
      List<Action> script, long seed, boolean drainAtOnce) {
    SemaphoreMachine machine = new SemaphoreMachine(SLICED);
    Driver driver = new Driver(true);
    Random random = new Random(seed);
    List<DeterminismProperties.Entry> log = new ArrayList<>();
    int[] continuations = {0};
    List<Command> commands = new ArrayList<>(driver.setup());
    for (Command command : commands) {
      step(machine, driver, command, log, continuations);
    }
    for (Action action : script) {
      while (continuations[0] > 0 && (drainAtOnce || random.nextBoolean())) {
        continuations[0]--;
        step(machine, driver, new Command.ContinueGrants(), log, continuations);
      }
      Command command = driver.next(action);
      if (command != null) {
        step(machine, driver, command, log, continuations);
      }
      while (drainAtOnce && continuations[0] > 0) {
        continuations[0]--;
        step(machine, driver, new Command.ContinueGrants(), log, continuations);
      }
    }
    while (continuations[0] > 0) {
      continuations[0]--;
      step(machine, driver, new Command.ContinueGrants(), log, continuations);
    }
    return log;
  }

  private static void step(
      SemaphoreMachine machine,
      Driver driver,
      Command command,
      List<DeterminismProperties.Entry> log,
      int[] continuations) {
    DeterminismProperties.Entry entry =
        new DeterminismProperties.Entry(driver.nextRevision(), driver.now(), command);
    Outcome outcome = machine.apply(entry.revision(), entry.now(), command);
    log.add(entry);
    driver.observe(command, outcome);
    if (outcome.effects().contains(new Effect.GrantsPending())) {
      continuations[0]++;
    }
  }

  /** Replies and completions in order, without revisions (slices take revisions of their own). */
  private static List<Object> answers(
      SemaphoreMachine machine, List<DeterminismProperties.Entry> log) {
    List<Object> out = new ArrayList<>();
    for (DeterminismProperties.Entry e : log) {
      Outcome o = machine.apply(e.revision(), e.now(), e.command());
      if (o.reply() != null && !(e.command() instanceof Command.ContinueGrants)) {
        out.add(List.of(o.reply().sessionId(), o.reply().requestId(), o.reply().result()));
      }
      for (Effect effect : o.effects()) {
        if (effect instanceof Effect.Complete c) {
          out.add(List.of(c.reply().sessionId(), c.reply().requestId(), c.reply().result()));
        } else if (!(effect instanceof Effect.GrantsPending)) {
          out.add(effect);
        }
      }
    }
    return out;
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void slicesDrainedBeforeTheNextCommandGiveTheRepliesOfOneStep(
      @ForAll("scripts") List<Action> script) {
    List<DeterminismProperties.Entry> log = slicedLog(script, 0, true);
    List<DeterminismProperties.Entry> whole = new ArrayList<>();
    for (DeterminismProperties.Entry e : log) {
      if (!(e.command() instanceof Command.ContinueGrants)) {
        whole.add(e);
      }
    }
    SemaphoreMachine sliced = new SemaphoreMachine(SLICED);
    SemaphoreMachine oneStep = new SemaphoreMachine(WHOLE);
    List<Object> got = answers(sliced, log);
    List<Object> want = answers(oneStep, whole);
    for (int i = 0; i < Math.min(got.size(), want.size()); i++) {
      assertThat(got.get(i))
          .as("answer %d; before it: %s", i, want.subList(Math.max(0, i - 6), i))
          .isEqualTo(want.get(i));
    }
    assertThat(got).hasSameSizeAs(want);
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void aMachineWithGrantsPendingRestoredFromASnapshotContinuesExactlyAsTheOriginal(
      @ForAll("scripts") List<Action> script,
      @ForAll long seed,
      @ForAll @IntRange(max = 100) int splitPercent) {
    List<DeterminismProperties.Entry> log = slicedLog(script, seed, false);
    Statistics.label("grants pending")
        .collect(log.stream().anyMatch(e -> e.command() instanceof Command.ContinueGrants));
    Statistics.label("grants pending").coverage(c -> c.check(true).percentage(p -> p >= 4));
    SemaphoreMachine original = new SemaphoreMachine(SLICED);
    List<Outcome> outcomes = new ArrayList<>();
    for (DeterminismProperties.Entry e : log) {
      outcomes.add(original.apply(e.revision(), e.now(), e.command()));
    }
    // split where grants are pending, when there is such a point: that is what is being tested
    List<Integer> pendingAfter = new ArrayList<>();
    SemaphoreMachine probe = new SemaphoreMachine(SLICED);
    for (int i = 0; i < log.size(); i++) {
      DeterminismProperties.Entry e = log.get(i);
      if (probe.apply(e.revision(), e.now(), e.command()).effects().contains(PENDING)) {
        pendingAfter.add(i + 1);
      }
    }
    int split =
        pendingAfter.isEmpty()
            ? log.size() * splitPercent / 100
            : pendingAfter.get(pendingAfter.size() * splitPercent / 101);
    SemaphoreMachine before = new SemaphoreMachine(SLICED);
    for (DeterminismProperties.Entry e : log.subList(0, split)) {
      before.apply(e.revision(), e.now(), e.command());
    }
    SemaphoreMachine restored =
        DeterminismProperties.restore(DeterminismProperties.snapshot(before), SLICED);
    for (int i = split; i < log.size(); i++) {
      DeterminismProperties.Entry e = log.get(i);
      assertThat(restored.apply(e.revision(), e.now(), e.command()))
          .as("outcome %d after restoring a snapshot taken at %d", i, split)
          .isEqualTo(outcomes.get(i));
    }
    assertThat(DeterminismProperties.snapshot(restored))
        .isEqualTo(DeterminismProperties.snapshot(original));
  }
}
