package io.semafor.it.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.it.faults.LinearizabilityChecker.Verdict;
import io.semafor.it.faults.ModelHistories.Step;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * The linearizability checker against the model itself: what the model made passes, a read the
 * model could not have made fails, and on histories small enough to try every order the checker
 * agrees with trying every order.
 */
class LinearizabilityProperties {
  private final LinearizabilityChecker checker = new LinearizabilityChecker();

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(1, 3),
            Arbitraries.integers().between(0, 250),
            Arbitraries.integers().between(0, 250),
            Arbitraries.integers().between(0, 9))
        .as(Step::new)
        .list()
        .ofMaxSize(60);
  }

  @Property
  void concurrentHistoriesTheModelMadeAreLinearizable(
      @ForAll("steps") List<Step> steps, @ForAll @IntRange(max = 4) int initial) {
    List<Op> ops = ModelHistories.fromModel(steps, initial, true);
    assertThat(checker.check(ops, initial).verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Property
  void aSequentialHistoryWithOneReadChangedIsNotLinearizable(
      @ForAll("steps") List<Step> steps,
      @ForAll @IntRange(max = 4) int initial,
      @ForAll @IntRange(max = 1_000) int which,
      @ForAll @IntRange(min = 1, max = 3) int by,
      @ForAll boolean up) {
    // In a sequential history of answered ops every read is determined, so any change shows.
    List<Step> withARead = new ArrayList<>(steps);
    withARead.add(new Step(3, 1, 0, 0, 2));
    List<Op> ops = new ArrayList<>(ModelHistories.fromModel(withARead, initial, false));
    assertThat(checker.check(ops, initial).verdict()).isEqualTo(Verdict.LINEARIZABLE);
    List<Integer> reads = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      if (ops.get(i).kind().equals(Op.READ)) {
        reads.add(i);
      }
    }
    int changed = reads.get(which % reads.size());
    Op read = ops.get(changed);
    long wrong = read.value() + (up ? by : -by);
    ops.set(
        changed,
        Op.read(
            read.client(),
            read.semaphore(),
            read.invoked(),
            read.completed(),
            Op.Outcome.OK,
            wrong));
    assertThat(checker.check(ops, initial).verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Provide
  Arbitrary<List<Op>> smallHistories() {
    // Times from a small range, so ties and overlaps are common; reads of any small value, so
    // many histories are wrong.
    return Combinators.combine(
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(1, 2),
            Arbitraries.integers().between(0, 12),
            Arbitraries.integers().between(0, 6),
            Arbitraries.integers().between(0, 5),
            Arbitraries.integers().between(0, 3))
        .as(
            (kind, amount, invoked, length, outcome, read) -> {
              Op.Outcome o =
                  outcome <= 3
                      ? Op.Outcome.OK
                      : outcome == 4 ? Op.Outcome.UNKNOWN : Op.Outcome.FAILED;
              long completed = (long) invoked + length;
              return switch (kind) {
                case 0 -> Op.acquire(0, "s", amount, invoked, completed, o, 1, 1);
                case 1 -> Op.release(0, "s", amount, invoked, completed, o);
                case 2 -> Op.increment(0, "s", amount, invoked, completed, o);
                default -> Op.read(0, "s", invoked, completed, o, read);
              };
            })
        .list()
        .ofMaxSize(6);
  }

  @Property
  void onSmallHistoriesTheCheckerAgreesWithTryingEveryOrder(
      @ForAll("smallHistories") List<Op> ops, @ForAll @IntRange(max = 2) int initial) {
    boolean expected = BruteForce.linearizable(ops, initial);
    Verdict verdict = checker.check(ops, initial).verdict();
    Statistics.collect(verdict);
    assertThat(verdict).isEqualTo(expected ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE);
  }

  /**
   * Linearizability by its definition, for a handful of ops: some set of the ops holding every OK
   * op and any of the UNKNOWN ones (FAILED ops and unanswered reads left out) has an order that
   * puts each op after every op of the set that completed before it was invoked (UNKNOWN ones never
   * complete), in which every step is legal in the model.
   */
  private static final class BruteForce {
    static boolean linearizable(List<Op> history, long initial) {
      List<Op> ok = new ArrayList<>();
      List<Op> unknown = new ArrayList<>();
      for (Op op : history) {
        if (op.outcome() == Op.Outcome.OK) {
          ok.add(op);
        } else if (op.outcome() == Op.Outcome.UNKNOWN && !op.kind().equals(Op.READ)) {
          unknown.add(op);
        }
      }
      for (int subset = 0; subset < 1 << unknown.size(); subset++) {
        List<Op> set = new ArrayList<>(ok);
        for (int u = 0; u < unknown.size(); u++) {
          if ((subset & 1 << u) != 0) {
            set.add(unknown.get(u));
          }
        }
        if (order(set, new boolean[set.size()], 0, initial)) {
          return true;
        }
      }
      return false;
    }

    private static boolean order(List<Op> set, boolean[] done, int count, long value) {
      if (count == set.size()) {
        return true;
      }
      for (int x = 0; x < set.size(); x++) {
        if (done[x] || !mayGoNext(set, done, x)) {
          continue;
        }
        Op op = set.get(x);
        long after;
        if (op.kind().equals(Op.ACQUIRE)) {
          if (value < op.amount()) {
            continue;
          }
          after = value - op.amount();
        } else if (op.kind().equals(Op.READ)) {
          if (op.value() != value) {
            continue;
          }
          after = value;
        } else {
          after = value + op.amount();
        }
        done[x] = true;
        boolean found = order(set, done, count + 1, after);
        done[x] = false;
        if (found) {
          return true;
        }
      }
      return false;
    }

    private static boolean mayGoNext(List<Op> set, boolean[] done, int x) {
      for (int y = 0; y < set.size(); y++) {
        Op other = set.get(y);
        boolean completes = other.outcome() == Op.Outcome.OK;
        if (y != x && !done[y] && completes && other.completed() < set.get(x).invoked()) {
          return false;
        }
      }
      return true;
    }
  }
}
