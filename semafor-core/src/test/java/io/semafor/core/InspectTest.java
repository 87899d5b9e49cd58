package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#reads: inspection pages its answer. Each list resumes on a key that stays with
 * its entry (the queue on the arrival sequence, holders on the session id, leases on the permit
 * id), so an entry that stays is shown exactly once however the lists change between pages.
 */
class InspectTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  private Result.SemaphoreDetail page(String name, int limit, Query.Position from) {
    Result result = h.query(new Query.Inspect(Name.of(name), limit, from, 0));
    assertThat(result).isInstanceOf(Result.SemaphoreDetail.class);
    return (Result.SemaphoreDetail) result;
  }

  private static List<Long> requestIds(Result.SemaphoreDetail page) {
    return page.queue().stream().map(Result.WaiterView::requestId).toList();
  }

  /** Queues {@code n} acquires of 1 on {@code name} (value 0) and returns their request ids. */
  private List<Long> queueAcquires(TestClient client, String name, int n) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(client.acquire(name, 1, Operation.FOREVER));
    }
    return ids;
  }

  @Test
  void aPageShowsAtMostTheLimitFromEachListAndSaysWhereEachResumes() {
    c.create("x", 4);
    List<TestClient> holders = List.of(h.connect(), h.connect());
    for (TestClient holder : holders) {
      holder.acquireOwned("x", 1, 0);
    }
    long lease =
        ((Result.LeaseGranted) c.result(c.acquireLease("x", 2, 60 * SECOND, 0))).permitId();
    List<Long> queued = queueAcquires(c, "x", 5);

    Result.SemaphoreDetail page = page("x", 3, Query.Position.START);

    assertThat(page.status().waiters()).isEqualTo(5);
    assertThat(page.status().holders()).isEqualTo(2);
    assertThat(page.status().leases()).isEqualTo(1);
    assertThat(requestIds(page)).isEqualTo(queued.subList(0, 3));
    assertThat(page.holders())
        .extracting(Result.HolderView::sessionId)
        .containsExactly(holders.get(0).sessionId, holders.get(1).sessionId);
    assertThat(page.leases()).extracting(Result.LeaseView::permitId).containsExactly(lease);
    assertThat(page.next())
        .isEqualTo(
            new Query.Position(page.queue().get(2).sequence(), holders.get(1).sessionId, lease));
    assertThat(page.queueMore()).isTrue();
    assertThat(page.holdersMore()).isFalse();
    assertThat(page.leasesMore()).isFalse();
  }

  @Test
  void followingThePagesShowsEveryKindOfWaiterOnceInArrivalOrder() {
    c.create("x", 1);
    List<Long> arrived = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      arrived.add(c.acquire("x", 2, Operation.FOREVER)); // a taker that holds back
      arrived.add(c.awaitZero("x", Operation.FOREVER)); // a zero waiter
      arrived.add(c.semop(Operation.FOREVER, new SemopOp(Name.of("x"), 0, false, false)));
      arrived.add(c.decrement("x", 1, Operation.FOREVER)); // a taker held back by the first
    }
    assertThat(h.status("x").waiters()).isEqualTo(16);

    List<Long> shown = new ArrayList<>();
    Query.Position from = Query.Position.START;
    Result.SemaphoreDetail page;
    int pages = 0;
    do {
      page = page("x", 3, from);
      shown.addAll(requestIds(page));
      from = page.next();
      pages++;
    } while (page.queueMore() && pages < 20);

    assertThat(shown).isEqualTo(arrived);
    assertThat(pages).isEqualTo(6);
  }

  @Test
  void waitersLeavingOrArrivingBetweenPagesAreNeitherSkippedNorRepeated() {
    c.create("x", 0);
    List<Long> w = queueAcquires(c, "x", 12);

    Result.SemaphoreDetail first = page("x", 4, Query.Position.START);
    assertThat(requestIds(first)).isEqualTo(w.subList(0, 4));
    c.cancel(w.get(3)); // the last waiter the page showed: where it resumes
    c.cancel(w.get(5)); // one not shown yet
    c.increment("x", 1); // grants the head, already shown
    long late = c.acquire("x", 1, Operation.FOREVER);

    Result.SemaphoreDetail second = page("x", 4, first.next());
    Result.SemaphoreDetail third = page("x", 4, second.next());

    assertThat(requestIds(second)).containsExactly(w.get(4), w.get(6), w.get(7), w.get(8));
    assertThat(requestIds(third)).containsExactly(w.get(9), w.get(10), w.get(11), late);
    assertThat(third.queueMore()).isFalse();
  }

  @Test
  void holdersPageInSessionIdOrderWhateverOrderTheyCameIn() {
    c.create("x", 5);
    List<TestClient> sessions = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      sessions.add(h.connect());
    }
    for (int i = sessions.size() - 1; i >= 0; i--) {
      sessions.get(i).acquireOwned("x", 1, 0);
    }

    Result.SemaphoreDetail first = page("x", 2, Query.Position.START);
    sessions.get(2).release("x", 1); // not shown yet, and gone
    Result.SemaphoreDetail second = page("x", 2, first.next());
    Result.SemaphoreDetail third = page("x", 2, second.next());

    assertThat(first.holders())
        .extracting(Result.HolderView::sessionId)
        .containsExactly(sessions.get(0).sessionId, sessions.get(1).sessionId);
    assertThat(second.holders())
        .extracting(Result.HolderView::sessionId)
        .containsExactly(sessions.get(3).sessionId, sessions.get(4).sessionId);
    assertThat(second.holdersMore()).isFalse();
    assertThat(third.holders()).isEmpty();
  }

  @Test
  void leasesPageInPermitIdOrder() {
    c.create("x", 5);
    List<Long> permits = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      permits.add(
          ((Result.LeaseGranted) c.result(c.acquireLease("x", 1, 60 * SECOND, 0))).permitId());
    }

    Result.SemaphoreDetail first = page("x", 2, Query.Position.START);
    c.releaseLease(permits.get(1)); // the last one shown
    c.releaseLease(permits.get(3)); // one not shown yet
    Result.SemaphoreDetail second = page("x", 2, first.next());

    assertThat(first.leases())
        .extracting(Result.LeaseView::permitId)
        .containsExactly(permits.get(0), permits.get(1));
    assertThat(second.leases())
        .extracting(Result.LeaseView::permitId)
        .containsExactly(permits.get(2), permits.get(4));
    assertThat(second.leasesMore()).isFalse();
  }

  @Test
  void aPageStopsBeforeItsByteBudgetButAlwaysShowsOneEntry() {
    c.create("x", 0);
    queueAcquires(c, "x", 10);
    int acquireBytes =
        Query.Inspect.WAITER_BYTES
            + "acquire".length()
            + Query.Inspect.clientBytes(ClientInfo.NONE);

    Result result = h.query(new Query.Inspect(Name.of("x"), 0, Query.Position.START, 1));
    Result.SemaphoreDetail tiny = (Result.SemaphoreDetail) result;
    result = h.query(new Query.Inspect(Name.of("x"), 0, Query.Position.START, 3 * acquireBytes));
    Result.SemaphoreDetail three = (Result.SemaphoreDetail) result;

    assertThat(tiny.queue()).hasSize(1);
    assertThat(tiny.queueMore()).isTrue();
    assertThat(three.queue()).hasSize(3);
  }

  @Test
  void aReaderThatNamesNoLimitGetsABoundedFirstPage() {
    c.create("x", 0);
    TestClient more = h.connect();
    queueAcquires(c, "x", 3_000);
    queueAcquires(more, "x", 3_000);

    Result.SemaphoreDetail first = h.inspect("x");
    Result.SemaphoreDetail most = page("x", Integer.MAX_VALUE, Query.Position.START);

    assertThat(first.queue()).hasSize(Query.Inspect.DEFAULT_LIMIT);
    assertThat(first.queueMore()).isTrue();
    assertThat(most.queue()).hasSize(Query.Inspect.MAX_LIMIT);
  }

  @Test
  void pagesThroughAHundredThousandWaitersResumeWithoutWalkingTheQueue() {
    Harness big = new Harness(Limits.DEFAULT.withMaxSessions(100));
    TestClient admin = big.connect();
    admin.create("x", 0);
    TestClient client = admin;
    for (int i = 0; i < 100_000; i++) {
      if (i % 4_000 == 0) {
        client = big.connect();
      }
      client.acquire("x", 1, Operation.FOREVER);
    }

    long shown = 0;
    long lastSequence = 0;
    boolean ordered = true;
    Query.Position from = Query.Position.START;
    Result.SemaphoreDetail page;
    int pages = 0;
    do {
      page = (Result.SemaphoreDetail) big.query(new Query.Inspect(Name.of("x"), 4_096, from, 0));
      for (Result.WaiterView w : page.queue()) {
        ordered &= w.sequence() > lastSequence;
        lastSequence = w.sequence();
      }
      shown += page.queue().size();
      from = page.next();
      admin.increment("x", 10); // the head is served between pages
      pages++;
    } while (page.queueMore() && pages < 100);

    assertThat(ordered).isTrue();
    assertThat(shown).isEqualTo(100_000); // those served between pages had been shown already
    assertThat(big.machine.inspectionWalk()).isZero();
  }

  @Test
  void whenTheWaiterAPageEndedAtLeavesTheNextPageStillStartsRightAfterIt() {
    c.create("x", 0);
    List<Long> w = queueAcquires(c, "x", 6);
    Result.SemaphoreDetail first = page("x", 3, Query.Position.START);

    c.cancel(w.get(2));
    c.cancel(w.get(3));
    Result.SemaphoreDetail second = page("x", 3, first.next());

    assertThat(requestIds(second)).containsExactly(w.get(4), w.get(5));
  }

  @Test
  void aReaderSkipsAListItHasFinishedByAskingAfterTheLargestPositionAtNoCost() {
    c.create("x", 1);
    TestClient holder = h.connect();
    holder.acquireOwned("x", 1, 0);
    queueAcquires(c, "x", 1_000);
    long walkedBefore = h.machine.inspectionWalk();

    Result.SemaphoreDetail page = page("x", 10, new Query.Position(Long.MAX_VALUE, 0, 0));

    assertThat(page.queue()).isEmpty();
    assertThat(page.queueMore()).isFalse();
    assertThat(page.holders())
        .extracting(Result.HolderView::sessionId)
        .containsExactly(holder.sessionId);
    assertThat(h.machine.inspectionWalk()).isEqualTo(walkedBefore);
  }

  @Test
  void aNegativeLimitBudgetOrPositionIsInvalidAndAMissingNameNotFound() {
    c.create("x", 0);
    List<Query> bad =
        List.of(
            new Query.Inspect(Name.of("x"), -1, Query.Position.START, 0),
            new Query.Inspect(Name.of("x"), 0, Query.Position.START, -1),
            new Query.Inspect(Name.of("x"), 0, new Query.Position(-1, 0, 0), 0),
            new Query.Inspect(Name.of("x"), 0, new Query.Position(0, -1, 0), 0),
            new Query.Inspect(Name.of("x"), 0, new Query.Position(0, 0, -1), 0));
    for (Query query : bad) {
      assertThat(h.query(query))
          .as("%s", query)
          .isInstanceOfSatisfying(
              Result.Failure.class,
              f -> assertThat(f.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }
    assertThat(h.query(new Query.Inspect(Name.of("y"))))
        .isInstanceOfSatisfying(
            Result.Failure.class, f -> assertThat(f.code()).isEqualTo(ErrorCode.NOT_FOUND));
  }
}
