package io.semafor.core;

import static io.semafor.core.Harness.DEFAULT_TTL;
import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#waitmany: the server side of IRIS WaitMany. */
class WaitManyTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();
  private final TestClient other = h.connect();

  private List<Result.Report> reports(long waitManyId) {
    return ((Result.WaitManyReported) c.result(waitManyId)).reports();
  }

  private static Result.Report report(String name, long granted) {
    return new Result.Report(Name.of(name), granted, 0);
  }

  /** Reports without tokens, which these tests do not check. */
  private List<Result.Report> untokened(long waitManyId) {
    return reports(waitManyId).stream()
        .map(r -> new Result.Report(r.name(), r.granted(), 0))
        .toList();
  }

  @Test
  void anAddTakesWhatIsThereAtOnce() {
    c.create("a", 2);
    assertThat(c.addToWaitMany("a", 5)).isEqualTo(new Result.WaitManyAdded(2, 0));
    assertThat(h.value("a")).isZero();
  }

  @Test
  void anAddOnZeroWaitsInTheSameQueueAsDecrement() {
    c.create("a", 0);
    long decrement = other.decrement("a", 1, Operation.FOREVER);
    assertThat(c.addToWaitMany("a", 1)).isEqualTo(new Result.WaitManyAdded(0, 1));

    other.increment("a", 1);

    assertThat(other.amount(decrement)).isEqualTo(1);
    assertThat(untokened(c.waitMany(0))).isEmpty();
    other.increment("a", 1);
    assertThat(untokened(c.waitMany(0))).containsExactly(report("a", 1));
  }

  @Test
  void waitManyReportsEveryGrantedEntryAndRemovesThem() {
    c.create("a", 1);
    c.create("b", 2);
    c.create("z", 0);
    c.addToWaitMany("a", 1);
    c.addToWaitMany("z", 1);
    c.addToWaitMany("b", 3);

    assertThat(untokened(c.waitMany(0))).containsExactly(report("a", 1), report("b", 2));
    assertThat(untokened(c.waitMany(0))).isEmpty();
  }

  @Test
  void reportsGoRoundRobinStartingAfterTheEntryReportedLast() {
    for (String name : List.of("a", "b", "c", "d")) {
      c.create(name, 0);
    }
    c.addToWaitMany("a", 1);
    c.addToWaitMany("b", 1);
    c.addToWaitMany("c", 1);
    other.increment("c", 1);
    assertThat(untokened(c.waitMany(0))).containsExactly(report("c", 1));

    c.addToWaitMany("d", 1);
    other.increment("a", 1);
    other.increment("b", 1);
    other.increment("d", 1);

    assertThat(untokened(c.waitMany(0)))
        .containsExactly(report("d", 1), report("a", 1), report("b", 1));
  }

  @Test
  void waitManyWaitsUntilAnEntryIsGranted() {
    c.create("a", 0);
    c.addToWaitMany("a", 2);
    long waitMany = c.waitMany(Operation.FOREVER);
    assertThat(c.waiting(waitMany)).isTrue();

    other.increment("a", 3);

    assertThat(untokened(waitMany)).containsExactly(report("a", 2));
    assertThat(h.value("a")).isEqualTo(1);
  }

  @Test
  void waitManyThatTimesOutReportsNothing() {
    c.create("a", 0);
    c.addToWaitMany("a", 2);
    long waitMany = c.waitMany(SECOND);
    h.advance(SECOND);
    h.expireWaiter(c, waitMany);
    assertThat(reports(waitMany)).isEmpty();
  }

  @Test
  void waitManyOnAnEmptyListReportsNothingAtOnce() {
    assertThat(reports(c.waitMany(Operation.FOREVER))).isEmpty();
  }

  @Test
  void aSecondWaitManyOnTheSameListIsInvalidWhileOneWaits() {
    c.create("a", 0);
    c.addToWaitMany("a", 1);
    c.waitMany(Operation.FOREVER);
    Result.Failure failure = (Result.Failure) c.result(c.waitMany(Operation.FOREVER));
    assertThat(failure.message()).startsWith("listId:");
  }

  @Test
  void listsWithDifferentIdsAreIndependent() {
    c.create("a", 1);
    c.call(new Operation.AddToWaitMany(7, Name.of("a"), 1));
    assertThat(reports(c.waitMany(0))).isEmpty();
    Result result = c.call(new Operation.WaitMany(7, 0));
    assertThat(((Result.WaitManyReported) result).reports()).hasSize(1);
  }

  @Test
  void removingAnEntryGivesItsUnreportedGrantBack() {
    c.create("a", 3);
    c.addToWaitMany("a", 2);
    assertThat(c.removeFromWaitMany("a")).isEqualTo(new Result.WaitManyRemoved(true, 2));
    assertThat(h.value("a")).isEqualTo(3);
  }

  @Test
  void removingAnEntryCancelsItsPendingRequest() {
    c.create("a", 0);
    c.addToWaitMany("a", 2);
    assertThat(c.removeFromWaitMany("a")).isEqualTo(new Result.WaitManyRemoved(true, 0));
    other.increment("a", 2);
    assertThat(h.value("a")).isEqualTo(2);
  }

  @Test
  void removingWhatIsNotInTheListSaysSo() {
    c.create("a", 0);
    assertThat(c.removeFromWaitMany("a")).isEqualTo(new Result.WaitManyRemoved(false, 0));
  }

  @Test
  void removingTheLastEntryEndsAWaitingWaitManyWithNothing() {
    c.create("a", 0);
    c.addToWaitMany("a", 1);
    long waitMany = c.waitMany(Operation.FOREVER);
    c.removeFromWaitMany("a");
    assertThat(reports(waitMany)).isEmpty();
  }

  @Test
  void deletingASemaphoreReportsZeroForItsEntries() {
    c.create("a", 0);
    c.create("b", 5);
    c.addToWaitMany("a", 1);
    c.addToWaitMany("b", 1);
    other.delete("a");
    other.delete("b");
    assertThat(untokened(c.waitMany(0))).containsExactly(report("a", 0), report("b", 0));
  }

  @Test
  void deletingASemaphoreWakesAWaitingWaitManyWithZero() {
    c.create("a", 0);
    c.addToWaitMany("a", 1);
    long waitMany = c.waitMany(Operation.FOREVER);
    other.delete("a");
    assertThat(untokened(waitMany)).containsExactly(report("a", 0));
  }

  @Test
  void anUnreportedGrantGoesBackWhenTheSessionExpires() {
    // IRIS keeps such grants; we lose nothing (docs/semantics.md#session-end).
    c.create("a", 3);
    c.addToWaitMany("a", 2);
    h.advance(DEFAULT_TTL);
    other.acknowledge();
    h.expireSession(c);
    assertThat(h.value("a")).isEqualTo(3);
  }

  @Test
  void aReportedGrantIsTheClientsOnceAcknowledged() {
    c.create("a", 3);
    c.addToWaitMany("a", 2);
    c.waitMany(0);
    c.acknowledge();
    c.close();
    assertThat(h.value("a")).isEqualTo(1);
  }

  @Test
  void aListHoldsAtLeast64EntriesAndUpTo4096() {
    for (int i = 0; i < 4096; i++) {
      c.create("s" + i, 0);
      assertThat(c.addToWaitMany("s" + i, 1)).isInstanceOf(Result.WaitManyAdded.class);
    }
    c.create("one-more", 0);
    Result.Failure failure = (Result.Failure) c.addToWaitMany("one-more", 1);
    assertThat(failure.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(failure.message()).startsWith("maxWaitManyEntries");
  }

  /**
   * The concepts chapter's worked example (IRIS concepts seed, "同一等待列表上有多个递减请求"), step by step,
   * with its exact reported amounts.
   */
  @Test
  void theIrisEighteenStepExampleComesOutExactly() {
    TestClient job = c;
    TestClient setter = other;
    // 1. Semaphore A is set to 0.
    job.create("A", 0);
    // 2. A decrement request of 4 on A.
    assertThat(job.addToWaitMany("A", 4)).isEqualTo(new Result.WaitManyAdded(0, 4));
    // 3. A decrement request of 1 on A; the new decrement is 5.
    assertThat(job.addToWaitMany("A", 1)).isEqualTo(new Result.WaitManyAdded(0, 5));
    // 4. A is set to 4.  5. The request is satisfied; 4 granted.
    setter.set("A", 4);
    assertThat(h.value("A")).isZero();
    // 6. WaitMany: WaitCompleted for A reports 4.
    assertThat(untokened(job.waitMany(0))).containsExactly(report("A", 4));
    // 7. A is set to 1.
    setter.set("A", 1);
    // 8. A decrement request of 3 on A.  9. Satisfied; 1 granted.
    assertThat(job.addToWaitMany("A", 3)).isEqualTo(new Result.WaitManyAdded(1, 0));
    // 10. A decrement request of 4 on A (waits: A is 0).
    assertThat(job.addToWaitMany("A", 4)).isEqualTo(new Result.WaitManyAdded(1, 4));
    // 11. WaitMany: WaitCompleted for A reports 1 (and the pending 4 is cancelled).
    assertThat(untokened(job.waitMany(0))).containsExactly(report("A", 1));
    assertThat(h.status("A").waiters()).isZero();
    // 12. A is set to 1.
    setter.set("A", 1);
    // 13. A decrement request of 3 on A.  14. Satisfied; 1 granted.
    assertThat(job.addToWaitMany("A", 3)).isEqualTo(new Result.WaitManyAdded(1, 0));
    // 15. A decrement request of 4 on A.
    assertThat(job.addToWaitMany("A", 4)).isEqualTo(new Result.WaitManyAdded(1, 4));
    // 16. A is set to 5.  17. Satisfied; 4 granted.
    setter.set("A", 5);
    // 18. WaitMany: WaitCompleted for A reports 5; A = 1.
    assertThat(untokened(job.waitMany(0))).containsExactly(report("A", 5));
    assertThat(h.value("A")).isEqualTo(1);
  }
}
