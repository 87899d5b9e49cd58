package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#create and #delete: create, open, delete. */
class CreateOpenDeleteTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void createMakesANewSemaphoreAndSaysSo() {
    assertThat(c.create("printers", 3))
        .isEqualTo(new Result.Created(true, SemaphoreOptions.DEFAULT, 3));
    assertThat(h.value("printers")).isEqualTo(3);
  }

  @Test
  void createOfAnExistingNameOpensItIgnoringInitialAndOptions() {
    SemaphoreOptions first = SemaphoreOptions.withCapacity(5).maxPerSession(1);
    c.create("pool", 2, first);

    Result again = c.create("pool", 4, SemaphoreOptions.DEFAULT.policy(Policy.BARGING));

    assertThat(again).isEqualTo(new Result.Created(false, first, 2));
    assertThat(h.value("pool")).isEqualTo(2);
  }

  @Test
  void openSucceedsOnlyIfTheSemaphoreExists() {
    assertThat(h.query(new Query.Get(Name.of("x")))).isInstanceOf(Result.Failure.class);
    c.create("x", 0);
    assertThat(h.query(new Query.Get(Name.of("x")))).isInstanceOf(Result.SemaphoreStatus.class);
  }

  @Test
  void aNegativeInitialValueIsInvalid() {
    assertThat(((Result.Failure) c.create("x", -1)).message())
        .isEqualTo("initial: must not be negative, was -1");
    assertThat(h.exists("x")).isFalse();
  }

  @Test
  void anInitialValueAboveTheCapacityIsInvalid() {
    Result result = c.create("x", 6, SemaphoreOptions.withCapacity(5));
    assertThat(((Result.Failure) result).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(((Result.Failure) result).message()).startsWith("initial:");
  }

  @Test
  void aNegativeCapacityIsInvalid() {
    Result result = c.create("x", 0, SemaphoreOptions.withCapacity(-2));
    assertThat(((Result.Failure) result).message()).startsWith("capacity:");
  }

  @Test
  void deleteRemovesTheSemaphoreAndLaterOperationsAreNotFound() {
    c.create("x", 1);
    assertThat(c.delete("x")).isEqualTo(new Result.Deleted());
    assertThat(((Result.Failure) c.increment("x", 1)).code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(((Result.Failure) c.delete("x")).code()).isEqualTo(ErrorCode.NOT_FOUND);
  }

  @Test
  void deleteCompletesEveryWaiterAtOnceWithDeleted() {
    c.create("x", 1);
    TestClient a = h.connect();
    TestClient b = h.connect();
    long zero = b.awaitZero("x", Operation.FOREVER);
    long acquire = b.acquire("x", 5, Operation.FOREVER);
    long decrement = a.decrement("x", 1, Operation.FOREVER); // held back behind the acquire

    c.delete("x");

    for (Result result : new Result[] {b.result(zero), b.result(acquire), a.result(decrement)}) {
      assertThat(((Result.Failure) result).code()).isEqualTo(ErrorCode.DELETED);
    }
  }

  @Test
  void deleteCompletesASemopWaitingOnItAndFreesItsOtherSemaphores() {
    c.create("x", 0);
    c.create("y", 1);
    TestClient a = h.connect();
    long semop = a.semop(Operation.FOREVER, SemopOp.of("x", -1), SemopOp.of("y", -1));
    long behind = c.acquire("y", 1, Operation.FOREVER); // held back by the semop on y

    c.delete("x");

    assertThat(((Result.Failure) a.result(semop)).code()).isEqualTo(ErrorCode.DELETED);
    assertThat(c.amount(behind)).isEqualTo(1);
  }

  @Test
  void deleteDropsOwnedAmountsAndLeasesSoLaterReleaseIsNotFound() {
    c.create("x", 2);
    long owned = c.acquireOwned("x", 1, 0);
    long lease = c.acquireLease("x", 1, 10 * SECOND, 0);
    long permitId = ((Result.LeaseGranted) c.result(lease)).permitId();
    assertThat(c.amount(owned)).isEqualTo(1);

    c.delete("x");

    assertThat(((Result.Failure) c.release("x", 1)).code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(((Result.Failure) c.renew(permitId, SECOND)).code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(c.releaseLease(permitId)).isEqualTo(new Result.LeaseReleased(false));
  }

  @Test
  void aNameCreatedAgainAfterDeleteIsAFreshSemaphore() {
    c.create("x", 5, SemaphoreOptions.withCapacity(9));
    c.acquireOwned("x", 2, 0);
    c.delete("x");

    assertThat(c.create("x", 1)).isEqualTo(new Result.Created(true, SemaphoreOptions.DEFAULT, 1));
    assertThat(h.status("x").owned()).isZero();
    // the session's old ownership does not follow the name
    assertThat(((Result.Failure) c.release("x", 1)).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void getShowsValueQueueDepthAndHolders() {
    c.create("x", 3);
    c.acquireOwned("x", 2, 0);
    TestClient other = h.connect();
    other.acquire("x", 5, Operation.FOREVER);

    Result.SemaphoreStatus status = h.status("x");

    assertThat(status.value()).isEqualTo(1);
    assertThat(status.waiters()).isEqualTo(1);
    assertThat(status.holders()).isEqualTo(1);
    assertThat(status.owned()).isEqualTo(2);
  }

  @Test
  void listAnswersNamesWithAPrefixInByteOrder() {
    for (String name : List.of("b/2", "a/1", "b/1", "c")) {
      c.create(name, 0);
    }
    Result result = h.query(new Query.ListNames(Name.of("b/"), 10, null));
    assertThat(((Result.NameList) result).names()).containsExactly(Name.of("b/1"), Name.of("b/2"));
  }

  @Test
  void aListPageStopsAtItsByteBudgetAndSaysMoreFollow() {
    int perName = Query.ListNames.NAME_BYTES + 1_000 + Query.ListNames.STATUS_BYTES + 1_000;
    int fit = Query.ListNames.BUDGET_BYTES / perName;
    for (int i = 0; i < fit + 5; i++) {
      c.create(String.format("%04d", i) + "n".repeat(996), 0);
    }

    Result.NameList page =
        (Result.NameList) h.query(new Query.ListNames(Name.of(""), 10_000, null, true));
    Result.NameList last =
        (Result.NameList)
            h.query(
                new Query.ListNames(
                    Name.of(""), 10_000, page.names().get(page.names().size() - 1), true));

    assertThat(page.names()).hasSize(fit);
    assertThat(page.statuses()).hasSize(fit);
    assertThat(page.more()).isTrue();
    assertThat(last.names()).hasSize(5);
    assertThat(last.more()).isFalse();
  }

  @Test
  void aListPageThatStopsAtItsLimitSaysMoreFollowOnlyIfAnotherNameDoes() {
    c.create("b/1", 0);
    c.create("b/2", 0);
    Result.NameList full = (Result.NameList) h.query(new Query.ListNames(Name.of("b/"), 2, null));
    Result.NameList cut = (Result.NameList) h.query(new Query.ListNames(Name.of("b/"), 1, null));
    assertThat(full.more()).isFalse();
    assertThat(cut.more()).isTrue();
  }
}
