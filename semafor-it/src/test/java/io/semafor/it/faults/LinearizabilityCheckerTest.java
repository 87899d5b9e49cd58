package io.semafor.it.faults;

import static io.semafor.it.faults.Op.Outcome.FAILED;
import static io.semafor.it.faults.Op.Outcome.OK;
import static io.semafor.it.faults.Op.Outcome.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.it.faults.LinearizabilityChecker.Result;
import io.semafor.it.faults.LinearizabilityChecker.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The linearizability checker against histories whose verdict is known: correct ones pass, in
 * whatever order their concurrent ops must be taken, and each planted bug is caught.
 */
class LinearizabilityCheckerTest {
  private static final String S = "s";
  private final LinearizabilityChecker checker = new LinearizabilityChecker();

  private static Op inc(long amount, long from, long to) {
    return Op.increment(0, S, amount, from, to, OK);
  }

  private static Op read(long value, long from, long to) {
    return Op.read(1, S, from, to, OK, value);
  }

  private static Op acquire(long amount, long from, long to) {
    return Op.acquire(2, S, amount, from, to, OK, from, from);
  }

  private static Op release(long amount, long from, long to) {
    return Op.release(2, S, amount, from, to, OK);
  }

  private Verdict verdict(long initial, Op... ops) {
    return checker.check(List.of(ops), initial).verdict();
  }

  @Test
  void anEmptyHistoryIsLinearizable() {
    assertThat(verdict(3)).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void aSequentialHistoryThatFollowsTheModelIsLinearizable() {
    assertThat(
            verdict(
                1,
                acquire(1, 0, 10),
                read(0, 20, 30),
                inc(2, 40, 50),
                read(2, 60, 70),
                release(1, 80, 90),
                read(3, 100, 110)))
        .isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void aStaleReadAfterACompletedIncrementIsNotLinearizable() {
    Result result = checker.check(List.of(inc(1, 0, 10), read(0, 20, 30)), 0);
    assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    assertThat(result.explanation())
        .contains("at best 1 linearize")
        .contains("leaving value 1")
        .contains("client 1 read of s = 0 [20, 30] OK must take effect");
  }

  @Test
  void concurrentOpsThatFitOnlyInAnOrderOtherThanInvocationOrderAreLinearizable() {
    // the read, invoked first, saw the increment invoked after it: both were in flight
    assertThat(verdict(0, read(1, 0, 100), inc(1, 10, 20))).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void twoReadsThatSawAnIncrementInOppositeOrdersAreNotLinearizable() {
    // the first read saw it, a read invoked after the first completed did not
    assertThat(verdict(0, inc(1, 0, 100), read(1, 10, 20), read(0, 30, 40)))
        .isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void anAcquireMayWaitForAReleaseInvokedAfterIt() {
    assertThat(
            verdict(
                1,
                acquire(1, 0, 10),
                Op.acquire(3, S, 1, 20, 100, OK, 2, 2),
                release(1, 50, 60),
                read(0, 110, 120)))
        .isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void anAcquireOfMorePermitsThanThereAreIsNotLinearizable() {
    assertThat(verdict(1, acquire(2, 0, 10))).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void twoAcquisitionsOfTheLastPermitAreNotLinearizable() {
    assertThat(verdict(1, acquire(1, 0, 10), Op.acquire(3, S, 1, 5, 15, OK, 6, 6)))
        .isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void aFailedOpIsLeftOut() {
    Op failed = Op.increment(0, S, 5, 0, 10, FAILED);
    assertThat(verdict(0, failed, read(0, 20, 30))).isEqualTo(Verdict.LINEARIZABLE);
    assertThat(verdict(0, failed, read(5, 20, 30))).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void anUnknownOpThatTookEffectIsLinearizable() {
    Op unknown = Op.increment(0, S, 1, 0, 10, UNKNOWN);
    assertThat(verdict(0, unknown, read(1, 20, 30))).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void anUnknownOpThatDidNotTakeEffectIsLinearizable() {
    Op unknown = Op.increment(0, S, 1, 0, 10, UNKNOWN);
    assertThat(verdict(0, unknown, read(0, 20, 30))).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void anUnknownOpMayTakeEffectLongAfterItsClientGaveUp() {
    // long after the slowest answer (10): only the second search, with no deadline, finds it
    Op unknown = Op.acquire(0, S, 1, 0, 10, UNKNOWN, -1, -1);
    assertThat(verdict(1, unknown, read(1, 1_000, 1_010), read(0, 2_000, 2_010)))
        .isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void anUndecidedVerdictSaysWhatHoldsIfUnknownOpsTookEffectSoon() {
    // 30 UNKNOWN increments and a read none of their subsets explains
    List<Op> ops = new ArrayList<>();
    ops.add(read(0, 0, 5));
    for (int i = 0; i < 30; i++) {
      ops.add(Op.increment(i, S, 1, 10 + i, 40 + i, UNKNOWN));
    }
    ops.add(read(31, 1_000, 1_005));
    Result result = new LinearizabilityChecker(100_000).check(ops, 0);
    assertThat(result.verdict()).isEqualTo(Verdict.UNDECIDED);
    assertThat(result.explanation())
        .startsWith("gave up after 100000 steps")
        .contains("; if every UNKNOWN op took effect within 5 ns (the slowest answer) of its");
    assertThat(result.steps()).isEqualTo(200_000);
  }

  @Test
  void anUnknownOpCannotTakeEffectBeforeItWasInvoked() {
    Op unknown = Op.increment(0, S, 1, 40, 50, UNKNOWN);
    assertThat(verdict(0, read(1, 0, 10), unknown)).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void anUnknownOpTakesEffectOnceAtMost() {
    Op unknown = Op.increment(0, S, 1, 0, 10, UNKNOWN);
    assertThat(verdict(0, unknown, read(2, 20, 30))).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void aReadThatDidNotCompleteIsLeftOut() {
    assertThat(verdict(0, Op.read(1, S, 0, 10, UNKNOWN, -1))).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void opsThatEndAndStartAtTheSameInstantMayBeTakenInEitherOrder() {
    // nanoTime ties: the read may have taken effect before the increment did
    assertThat(verdict(0, inc(1, 0, 20), read(0, 20, 30))).isEqualTo(Verdict.LINEARIZABLE);
    assertThat(verdict(0, inc(1, 0, 19), read(0, 20, 30))).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void checkAllChecksEachSemaphoreFromItsOwnInitialValue() {
    List<Op> ops =
        List.of(
            Op.read(0, "a", 0, 10, OK, 5),
            Op.read(0, "b", 0, 10, OK, 7),
            Op.increment(1, "a", 1, 20, 30, OK),
            Op.read(0, "b", 40, 50, OK, 8));
    Map<String, Result> results = checker.checkAll(ops, Map.of("a", 5L, "b", 7L));
    // the increment was of a, not b
    assertThat(results)
        .extractingFromEntries(e -> e.getKey() + " " + e.getValue().verdict())
        .containsExactly("a LINEARIZABLE", "b NOT_LINEARIZABLE");
  }

  @Test
  void checkAllRefusesASemaphoreWithNoInitialValue() {
    assertThatThrownBy(() -> checker.checkAll(List.of(read(0, 0, 1)), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no initial value for semaphore s");
  }

  @Test
  void checkRefusesOpsOfSeveralSemaphores() {
    List<Op> ops = List.of(read(0, 0, 1), Op.read(0, "t", 2, 3, OK, 0));
    assertThatThrownBy(() -> checker.check(ops, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aHugeAmbiguousHistoryIsUndecidedRatherThanSearchedForEver() {
    // 40 concurrent increments and a read no subset of them explains: ruling out every subset
    // would take 2^40 configurations
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ops.add(Op.increment(i, S, 1, i, 1_000, OK));
    }
    ops.add(read(41, 0, 1_000));
    long start = System.nanoTime();
    Result result = checker.check(ops, 0);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(result.verdict()).isEqualTo(Verdict.UNDECIDED);
    assertThat(result.explanation()).startsWith("gave up after 2000000 steps");
    System.out.printf("UNDECIDED after %d steps in %d ms%n", result.steps(), millis);
  }

  @Test
  void aSmallBoundGivesUpSooner() {
    LinearizabilityChecker impatient = new LinearizabilityChecker(3);
    List<Op> ops = List.of(inc(1, 0, 10), inc(1, 20, 30), inc(1, 40, 50), read(3, 60, 70));
    assertThat(impatient.check(ops, 0).verdict()).isEqualTo(Verdict.UNDECIDED);
    assertThat(checker.check(ops, 0).verdict()).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void fiveThousandMostlySequentialOpsAreCheckedInAFewStepsEach() {
    List<Op> ops =
        ModelHistories.fromModel(
            ModelHistories.randomSteps(new Random(42), 5_000, 150, true), 3, true);
    long start = System.nanoTime();
    Result result = checker.check(ops, 3);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(result.verdict()).isEqualTo(Verdict.LINEARIZABLE);
    assertThat(result.steps()).isLessThan(100_000);
    System.out.printf("5000 ops: %d steps in %d ms%n", result.steps(), millis);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aStaleReadLateInALongHistoryIsFoundAndNamed() {
    List<Op> ops =
        new ArrayList<>(
            ModelHistories.fromModel(
                ModelHistories.randomSteps(new Random(7), 3_000, 150, false), 3, true));
    Op last = ops.get(ops.size() - 1);
    long t = last.completed() + 1_000;
    ops.add(Op.increment(9, S, 1, t, t + 10, OK));
    ops.add(Op.read(9, S, t + 20, t + 30, OK, -5)); // never a value
    Result result = checker.check(ops, 3);
    assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    assertThat(result.explanation()).contains("read of s = -5");
  }
}
