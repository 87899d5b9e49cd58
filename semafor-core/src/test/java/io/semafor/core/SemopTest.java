package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#semop: SysV {@code semop}. */
class SemopTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  private Result.SemopDone done(TestClient client, long id) {
    return (Result.SemopDone) client.result(id);
  }

  @Test
  void allOpsTakeEffectTogether() {
    c.create("printer", 1);
    c.create("scanner", 1);
    long id = c.semop(0, SemopOp.of("printer", -1), SemopOp.of("scanner", -1));
    assertThat(done(c, id).done()).isTrue();
    assertThat(h.value("printer")).isZero();
    assertThat(h.value("scanner")).isZero();
  }

  @Test
  void noOpTakesEffectUnlessAllCan() {
    c.create("printer", 1);
    c.create("scanner", 0);
    long id = c.semop(Operation.FOREVER, SemopOp.of("printer", -1), SemopOp.of("scanner", -1));
    assertThat(c.waiting(id)).isTrue();
    assertThat(h.value("printer")).isEqualTo(1);

    h.connect().increment("scanner", 1);

    assertThat(done(c, id).done()).isTrue();
    assertThat(h.value("printer")).isZero();
  }

  @Test
  void aPositiveDeltaAdds() {
    c.create("x", 1);
    c.semop(0, SemopOp.of("x", 4));
    assertThat(h.value("x")).isEqualTo(5);
  }

  @Test
  void opsAreTriedInListOrderSoANameMayRepeat() {
    c.create("x", 0);
    long id = c.semop(0, SemopOp.of("x", 2), SemopOp.of("x", -1), SemopOp.of("x", -1));
    assertThat(done(c, id).done()).isTrue();
    assertThat(h.value("x")).isZero();
  }

  @Test
  void aZeroOpSeesTheValueLeftByEarlierOps() {
    c.create("x", 1);
    long id = c.semop(0, SemopOp.of("x", -1), SemopOp.of("x", 0));
    assertThat(done(c, id).done()).isTrue();
  }

  @Test
  void aZeroOpWaitsForZero() {
    c.create("x", 1);
    long id = c.semop(Operation.FOREVER, SemopOp.of("x", 0));
    assertThat(c.waiting(id)).isTrue();
    h.connect().set("x", 0);
    assertThat(done(c, id).done()).isTrue();
  }

  @Test
  void theLockIdiomZeroThenPlusOneAdmitsExactlyOne() {
    c.create("lock", 1);
    List<TestClient> clients = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      TestClient client = h.connect();
      clients.add(client);
      ids.add(client.semop(Operation.FOREVER, SemopOp.of("lock", 0), SemopOp.of("lock", 1)));
    }

    c.set("lock", 0);

    assertThat(done(clients.get(0), ids.get(0)).done()).isTrue();
    assertThat(clients.get(1).waiting(ids.get(1))).isTrue();
    assertThat(clients.get(2).waiting(ids.get(2))).isTrue();
    assertThat(h.value("lock")).isEqualTo(1);
  }

  @Test
  void noWaitFailsWithWouldBlockAndChangesNothing() {
    c.create("x", 5);
    c.create("y", 0);
    long id = c.semop(0, SemopOp.of("x", -1), SemopOp.of("y", -1).withNoWait());
    Result.Failure failure = (Result.Failure) c.result(id);
    assertThat(failure.code()).isEqualTo(ErrorCode.WOULD_BLOCK);
    assertThat(failure.message()).startsWith("ops[1]:");
    assertThat(h.value("x")).isEqualTo(5);
  }

  @Test
  void noWaitIsPerOpSoAnOpWithoutItStillWaits() {
    c.create("x", 5);
    c.create("y", 0);
    long id = c.semop(Operation.FOREVER, SemopOp.of("y", -1), SemopOp.of("x", -1).withNoWait());
    assertThat(c.waiting(id)).isTrue();
  }

  @Test
  void aTimeoutReturnsNotDoneRatherThanAnError() {
    c.create("x", 0);
    long id = c.semop(SECOND, SemopOp.of("x", -1));
    h.advance(SECOND);
    h.expireWaiter(c, id);
    assertThat(done(c, id).done()).isFalse();
  }

  @Test
  void anAddPastTheCeilingFailsWithOverflowAndChangesNothing() {
    c.create("x", 1);
    c.create("y", 2, SemaphoreOptions.withCapacity(3));
    long id = c.semop(0, SemopOp.of("x", -1), SemopOp.of("y", 2));
    Result.Failure failure = (Result.Failure) c.result(id);
    assertThat(failure.code()).isEqualTo(ErrorCode.OVERFLOW);
    assertThat(failure.message()).startsWith("ops[1].delta:");
    assertThat(h.value("x")).isEqualTo(1);
  }

  @Test
  void anUnknownNameIsNotFoundNamingTheOp() {
    c.create("x", 1);
    Result.Failure failure =
        (Result.Failure) c.result(c.semop(0, SemopOp.of("x", -1), SemopOp.of("nope", -1)));
    assertThat(failure.code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(failure.message()).startsWith("ops[1].name:");
  }

  @Test
  void anEmptyListIsInvalid() {
    Result result = c.call(new Operation.Semop(List.of(), 0));
    assertThat(((Result.Failure) result).message()).startsWith("ops:");
  }

  @Test
  void moreOpsThanTheLimitIsResourceExhaustedNamingTheLimit() {
    c.create("x", 0);
    List<SemopOp> ops = new ArrayList<>();
    for (int i = 0; i < 501; i++) {
      ops.add(SemopOp.of("x", 1));
    }
    Result.Failure failure = (Result.Failure) c.call(new Operation.Semop(ops, 0));
    assertThat(failure.code()).isEqualTo(ErrorCode.RESOURCE_EXHAUSTED);
    assertThat(failure.message()).startsWith("maxSemopOps");
  }

  @Test
  void anOwnedTakeIsUndoneWhenTheSessionEnds() {
    c.create("x", 3);
    TestClient holder = h.connect();
    holder.semop(0, SemopOp.of("x", -2).withOwned());
    assertThat(h.value("x")).isEqualTo(1);

    holder.close();

    assertThat(h.value("x")).isEqualTo(3);
  }

  @Test
  void anOwnedAddPaysBackWhatTheSessionOwns() {
    c.create("x", 3);
    c.semop(0, SemopOp.of("x", -2).withOwned());
    c.semop(0, SemopOp.of("x", 2).withOwned());
    assertThat(h.status("x").owned()).isZero();
    c.close();
    assertThat(h.value("x")).isEqualTo(3);
  }

  @Test
  void anOwnedAddBeyondWhatIsOwnedIsTakenBackWhenTheSessionEnds() {
    // The PHP seed's crash-safe lock: (2, +1, SEM_UNDO) is undone by -1 when the process dies.
    c.create("setval", 0);
    TestClient php = h.connect();
    php.semop(0, SemopOp.of("setval", 0), SemopOp.of("setval", 1).withOwned());
    assertThat(h.value("setval")).isEqualTo(1);

    h.advance(Harness.DEFAULT_TTL);
    h.expireSession(php);

    assertThat(h.value("setval")).isZero();
  }

  @Test
  void aNegativeAdjustmentNeverTakesTheValueBelowZero() {
    c.create("x", 0);
    TestClient php = h.connect();
    php.semop(0, SemopOp.of("x", 2).withOwned());
    c.decrement("x", 2, 0);
    php.close();
    assertThat(h.value("x")).isZero();
  }

  @Test
  void aBlockedSemopHoldsBackLaterTakersOnEverySemaphoreItTakesFrom() {
    c.create("a", 1);
    c.create("b", 0);
    TestClient first = h.connect();
    first.semop(Operation.FOREVER, SemopOp.of("a", -1), SemopOp.of("b", -1));

    long later = c.acquire("a", 1, Operation.FOREVER);

    assertThat(c.waiting(later)).isTrue();
    assertThat(h.value("a")).isEqualTo(1);
  }

  @Test
  void waitingSemopsOverSeveralSemaphoresDoNotDeadlock() {
    c.create("a", 0);
    c.create("b", 0);
    TestClient one = h.connect();
    TestClient two = h.connect();
    long ab = one.semop(Operation.FOREVER, SemopOp.of("a", -1), SemopOp.of("b", -1));
    long ba = two.semop(Operation.FOREVER, SemopOp.of("b", -1), SemopOp.of("a", -1));

    c.increment("a", 1);
    c.increment("b", 1);
    assertThat(done(one, ab).done()).isTrue();

    c.increment("b", 1);
    c.increment("a", 1);
    assertThat(done(two, ba).done()).isTrue();
  }

  @Test
  void aSemopThatAddsBeforeItTakesIsServedAtZeroOnceTheBlockerAheadOfItLeaves() {
    c.create("x", 0);
    TestClient reader = h.connect();
    long partial = reader.decrement("x", 1, Operation.FOREVER); // at the head, waiting for > 0
    TestClient big = h.connect();
    long blocker = big.acquire("x", 5, Operation.FOREVER);
    long selfFeeding =
        c.semop(Operation.FOREVER, SemopOp.of("x", 2), SemopOp.of("x", -2)); // held back

    big.cancel(blocker);

    assertThat(done(c, selfFeeding).done()).isTrue();
    assertThat(reader.waiting(partial)).isTrue();
    assertThat(h.value("x")).isZero();
  }

  @Test
  void ownedTakesOnASlottedSemaphoreReportTheirSlotsPerOp() {
    c.create("x", 3, SemaphoreOptions.withCapacity(3));
    long id = c.semop(0, SemopOp.of("x", -2).withOwned(), SemopOp.of("x", -1));
    assertThat(done(c, id).slots()).containsExactly(List.of(1L, 2L), List.of());
  }
}
