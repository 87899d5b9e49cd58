package io.semafor.it.faults;

import static io.semafor.it.faults.Op.Outcome.FAILED;
import static io.semafor.it.faults.Op.Outcome.OK;
import static io.semafor.it.faults.Op.Outcome.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.it.History;
import io.semafor.it.HistoryChecker;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each fault check passes a correct history and catches the bug planted in an otherwise same one.
 */
class FaultChecksTest {
  private static final String C = "counter";
  private static final String S = "s";

  private static Op inc(long amount, Op.Outcome outcome) {
    return Op.increment(0, C, amount, 0, 10, outcome);
  }

  private static Op acquire(int client, long amount, long from, long to, long token) {
    return Op.acquire(client, S, amount, from, to, OK, token, token);
  }

  private static Op release(int client, long amount, long from, long to) {
    return Op.release(client, S, amount, from, to, OK);
  }

  // incrementsAccountedFor

  @Test
  void everyOkIncrementLandedOncePasses() {
    List<Op> ops = List.of(inc(2, OK), inc(3, OK));
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 10, 15)).isEmpty();
  }

  @Test
  void anUnknownIncrementMayHaveLandedOrNot() {
    List<Op> ops = List.of(inc(2, OK), inc(3, UNKNOWN));
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 0, 2)).isEmpty();
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 0, 5)).isEmpty();
  }

  @Test
  void aLostIncrementIsFound() {
    List<Op> ops = List.of(inc(2, OK), inc(3, OK), inc(4, UNKNOWN));
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 0, 4))
        .containsExactly("lost increments of counter: 1 lost (it rose by 4, OK increments add 5)");
  }

  @Test
  void aDuplicatedIncrementIsFound() {
    List<Op> ops = List.of(inc(2, OK), inc(3, UNKNOWN));
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 0, 7))
        .containsExactly(
            "duplicated increments of counter: 2 too many (it rose by 7, OK increments add 2 and"
                + " UNKNOWN ones at most 3)");
  }

  @Test
  void aFailedIncrementThatLandedIsFound() {
    List<Op> ops = List.of(inc(2, OK), inc(3, FAILED));
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 0, 5)).hasSize(1);
  }

  @Test
  void incrementsOfOtherSemaphoresAreNotCounted() {
    List<Op> ops = List.of(inc(2, OK), Op.increment(0, "other", 5, 0, 1, OK));
    assertThat(FaultChecks.incrementsAccountedFor(ops, C, 0, 2)).isEmpty();
  }

  @Test
  void aCounterThatIsAlsoAcquiredIsRefused() {
    List<Op> ops = List.of(inc(2, OK), Op.acquire(0, C, 1, 20, 30, OK, 1, 1));
    assertThatThrownBy(() -> FaultChecks.incrementsAccountedFor(ops, C, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // incrementsAndTakesAccountedFor

  private static Op take(long amount, Op.Outcome outcome) {
    return Op.take(0, C, amount, 0, 1, outcome);
  }

  @Test
  void incrementsLessReportedTakesPass() {
    List<Op> ops = List.of(inc(5, OK), take(2, OK), take(1, OK));
    assertThat(FaultChecks.incrementsAndTakesAccountedFor(ops, C, 0, 2)).isEmpty();
  }

  @Test
  void anUnknownTakeMayHaveConsumedUpToItsAmountOrNothing() {
    List<Op> ops = List.of(inc(5, OK), take(2, OK), take(2, UNKNOWN));
    assertThat(FaultChecks.incrementsAndTakesAccountedFor(ops, C, 0, 1)).isEmpty();
    assertThat(FaultChecks.incrementsAndTakesAccountedFor(ops, C, 0, 3)).isEmpty();
  }

  @Test
  void aReportedGrantThatAlsoWentBackIsFound() {
    List<Op> ops = List.of(inc(5, OK), take(2, OK));
    assertThat(FaultChecks.incrementsAndTakesAccountedFor(ops, C, 0, 4))
        .containsExactly(
            "permits of counter from nothing: it rose by 4, at most 3 can be accounted for"
                + " (increments add 5 OK and at most 0 UNKNOWN, takes consumed 2 OK and at most 0"
                + " UNKNOWN)");
  }

  @Test
  void permitsGrantedToNoOneWhoWasToldAreFound() {
    List<Op> ops = List.of(inc(5, OK), take(2, OK), take(1, UNKNOWN));
    assertThat(FaultChecks.incrementsAndTakesAccountedFor(ops, C, 0, 1))
        .containsExactly(
            "permits of counter lost: it rose by 1, at least 2 must be accounted for (increments"
                + " add 5 OK and at most 0 UNKNOWN, takes consumed 2 OK and at most 1 UNKNOWN)");
  }

  @Test
  void aSemaphoreAlsoAcquiredIsRefusedAsTakesAccounting() {
    List<Op> ops = List.of(inc(2, OK), Op.acquire(0, C, 1, 20, 30, OK, 1, 1));
    assertThatThrownBy(() -> FaultChecks.incrementsAndTakesAccountedFor(ops, C, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // releasesOfUnheldPermits

  @Test
  void releasingWhatWasAcquiredPasses() {
    List<Op> ops =
        List.of(
            acquire(0, 2, 0, 10, 1),
            release(0, 1, 20, 30),
            release(0, 1, 40, 50),
            acquire(1, 1, 60, 70, 2),
            release(1, 1, 80, 90));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops)).isEmpty();
  }

  @Test
  void aReleaseOfPermitsNeverAcquiredIsFound() {
    List<Op> ops = List.of(acquire(0, 1, 0, 10, 1), release(0, 2, 20, 30));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops))
        .containsExactly(
            "client 0 release 2 of s [20, 30] OK released 2 permits while holding at most 1");
  }

  @Test
  void aSecondReleaseOfTheSamePermitIsFound() {
    List<Op> ops = List.of(acquire(0, 1, 0, 10, 1), release(0, 1, 20, 30), release(0, 1, 40, 50));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops)).hasSize(1);
  }

  @Test
  void anotherClientsPermitsAreNotOnesToRelease() {
    List<Op> ops = List.of(acquire(0, 1, 0, 10, 1), release(1, 1, 20, 30));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops)).hasSize(1);
  }

  @Test
  void aReleaseAfterAnUnknownAcquireIsAllowed() {
    List<Op> ops = List.of(Op.acquire(0, S, 1, 0, 10, UNKNOWN, -1, -1), release(0, 1, 20, 30));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops)).isEmpty();
  }

  @Test
  void aFailedAcquireHoldsNothingToRelease() {
    List<Op> ops = List.of(Op.acquire(0, S, 1, 0, 10, FAILED, -1, -1), release(0, 1, 20, 30));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops)).hasSize(1);
  }

  @Test
  void anUnknownReleaseMayNotHaveHappenedSoTheRetryIsAllowed() {
    List<Op> ops =
        List.of(
            acquire(0, 1, 0, 10, 1), Op.release(0, S, 1, 20, 30, UNKNOWN), release(0, 1, 40, 50));
    assertThat(FaultChecks.releasesOfUnheldPermits(ops)).isEmpty();
  }

  // permitsBackAtQuiescence

  @Test
  void everyPermitBackPasses() {
    assertThat(
            FaultChecks.permitsBackAtQuiescence(Map.of("a", 3L, "b", 1L), Map.of("a", 3L, "b", 1L)))
        .isEmpty();
  }

  @Test
  void aLeakedPermitIsFound() {
    assertThat(FaultChecks.permitsBackAtQuiescence(Map.of("a", 3L), Map.of("a", 2L)))
        .containsExactly("a: leaked 1 permits (value 2, capacity 3)");
  }

  @Test
  void permitsReturnedTwiceAreFound() {
    assertThat(FaultChecks.permitsBackAtQuiescence(Map.of("a", 3L), Map.of("a", 5L)))
        .containsExactly("a: 2 permits too many (value 5, capacity 3)");
  }

  @Test
  void aSemaphoreWithNoValueReadIsFound() {
    assertThat(FaultChecks.permitsBackAtQuiescence(Map.of("a", 3L), Map.of()))
        .containsExactly("a: no value read after all sessions ended");
  }

  // holdsOf

  @Test
  void eachAcquireIsPairedWithItsClientsNextRelease() {
    List<Op> ops =
        List.of(
            acquire(0, 1, 0, 10, 1),
            acquire(1, 1, 5, 15, 2),
            release(1, 1, 20, 25),
            release(0, 1, 30, 35));
    assertThat(FaultChecks.holdsOf(ops))
        .containsExactly(
            new History.Hold(0, 1, 0, 10, 1, 1, 30, 35),
            new History.Hold(1, 1, 5, 15, 2, 2, 20, 25));
  }

  @Test
  void anAcquireNeverReleasedIsStillHeld() {
    assertThat(FaultChecks.holdsOf(List.of(acquire(0, 1, 0, 10, 1))))
        .containsExactly(new History.Hold(0, 1, 0, 10, 1, 1, Long.MAX_VALUE, Long.MAX_VALUE));
  }

  @Test
  void aReleaseOfPartOfAnAcquisitionEndsPartOfItsHold() {
    List<Op> ops = List.of(acquire(0, 3, 0, 10, 1), release(0, 1, 20, 25), release(0, 2, 30, 35));
    assertThat(FaultChecks.holdsOf(ops))
        .containsExactlyInAnyOrder(
            new History.Hold(0, 1, 0, 10, 1, 1, 20, 25),
            new History.Hold(0, 2, 0, 10, 1, 1, 30, 35));
  }

  @Test
  void aFailedReleaseDoesNotEndAHoldAndAnUnknownOneDoes() {
    List<Op> ops =
        List.of(
            acquire(0, 1, 0, 10, 1),
            Op.release(0, S, 1, 20, 25, FAILED),
            Op.release(0, S, 1, 30, 35, UNKNOWN));
    assertThat(FaultChecks.holdsOf(ops))
        .containsExactly(new History.Hold(0, 1, 0, 10, 1, 1, 30, Long.MAX_VALUE));
  }

  @Test
  void holdsOfOneSemaphoreLeaveOthersOut() {
    List<Op> ops = List.of(acquire(0, 1, 0, 10, 1), Op.acquire(0, "t", 1, 0, 10, OK, 2, 2));
    assertThat(FaultChecks.holdsOf(ops, "t")).extracting(History.Hold::token).containsExactly(2L);
  }

  @Test
  void holdsFromManyProcessesFeedTheOverCapacityCheck() {
    // two clients each certainly held the one permit from 10 to 20
    List<Op> overlapping =
        List.of(
            acquire(0, 1, 0, 10, 1),
            acquire(1, 1, 0, 10, 2),
            release(0, 1, 20, 25),
            release(1, 1, 20, 25));
    assertThat(HistoryChecker.overCapacity(FaultChecks.holdsOf(overlapping, S), 1)).hasSize(1);
    List<Op> handedOver =
        List.of(
            acquire(0, 1, 0, 10, 1),
            release(0, 1, 20, 25),
            acquire(1, 1, 15, 30, 2),
            release(1, 1, 40, 45));
    assertThat(HistoryChecker.overCapacity(FaultChecks.holdsOf(handedOver, S), 1)).isEmpty();
  }

  @Test
  void holdsFromManyProcessesFeedTheTokenAndSequenceChecks() {
    List<Op> ops =
        List.of(
            acquire(0, 1, 0, 10, 5),
            release(0, 1, 20, 25),
            acquire(1, 1, 30, 40, 4),
            release(1, 1, 50, 55));
    List<History.Hold> holds = FaultChecks.holdsOf(ops);
    assertThat(HistoryChecker.tokensOutOfOrder(holds)).hasSize(1);
    assertThat(HistoryChecker.sequencesOutOfOrder(holds)).hasSize(1);
  }
}
