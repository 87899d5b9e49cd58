package io.semafor.core;

import static io.semafor.core.Harness.DEFAULT_TTL;
import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#sessions: who each session's client is, the list of live sessions, and ending
 * another session by hand.
 */
class SessionAdministrationTest {
  private final Harness h = new Harness();
  private final ClientInfo worker = new ClientInfo("worker", "host-a", 4242);
  private final TestClient operator = h.connect(DEFAULT_TTL, new ClientInfo("semafor-cli", "", 7));

  private Result.SessionList sessions(int limit, long after) {
    return (Result.SessionList) h.query(new Query.ListSessions(limit, after));
  }

  @Test
  void inspectShowsWhoEachHolderAndWaiterIs() {
    operator.create("x", 1);
    TestClient holder = h.connect(DEFAULT_TTL, worker);
    holder.acquireOwned("x", 1, 0);
    holder.acknowledge();
    TestClient waiter = h.connect(DEFAULT_TTL, new ClientInfo("batch", "host-b", 9));
    waiter.acquire("x", 1, Operation.FOREVER);

    Result.SemaphoreDetail detail = h.inspect("x");

    assertThat(detail.holders()).extracting(Result.HolderView::client).containsExactly(worker);
    assertThat(detail.queue())
        .extracting(Result.WaiterView::client)
        .containsExactly(new ClientInfo("batch", "host-b", 9));
  }

  @Test
  void theSessionListShowsEveryLiveSessionInIdOrderWithItsClientAndCounts() {
    operator.create("x", 2);
    TestClient holder = h.connect(30 * SECOND, worker);
    holder.acquireOwned("x", 2, 0);
    holder.acknowledge();
    holder.acquire("x", 1, Operation.FOREVER);
    h.advance(SECOND);

    Result.SessionList list = sessions(10, 0);

    assertThat(list.more()).isFalse();
    assertThat(list.sessions())
        .extracting(Result.SessionView::sessionId)
        .containsExactly(operator.sessionId, holder.sessionId);
    Result.SessionView view = list.sessions().get(1);
    assertThat(view.client()).isEqualTo(worker);
    assertThat(view.ttl()).isEqualTo(30 * SECOND);
    assertThat(view.holdings()).isEqualTo(1);
    assertThat(view.waiting()).isEqualTo(1);
    assertThat(h.now() - view.openedAt()).isEqualTo(SECOND);
  }

  @Test
  void theSessionListIsPagedAfterAnIdAndLeavesEndedSessionsOut() {
    TestClient a = h.connect();
    TestClient b = h.connect();
    TestClient c = h.connect();
    h.advance(DEFAULT_TTL);
    assertThat(h.expireSession(b)).isEqualTo(new Result.Expiry(true));

    Result.SessionList first = sessions(2, 0);
    Result.SessionList second = sessions(2, first.sessions().get(1).sessionId());

    assertThat(first.sessions())
        .extracting(Result.SessionView::sessionId)
        .containsExactly(operator.sessionId, a.sessionId);
    assertThat(first.more()).isTrue();
    assertThat(second.sessions())
        .extracting(Result.SessionView::sessionId)
        .containsExactly(c.sessionId);
    assertThat(second.more()).isFalse();
  }

  @Test
  void endingAnotherSessionGivesBackWhatItOwnedAndFailsWhatItAwaited() {
    operator.create("x", 3);
    TestClient dead = h.connect(3600 * SECOND, worker);
    dead.acquireOwned("x", 3, 0);
    dead.acknowledge();
    long waiting = dead.acquire("x", 1, Operation.FOREVER);

    Result ended = operator.call(new Operation.EndSession(dead.sessionId));

    assertThat(ended).isEqualTo(new Result.SessionEnded(dead.sessionId));
    assertThat(h.value("x")).isEqualTo(3);
    assertThat(dead.result(waiting))
        .isInstanceOfSatisfying(
            Result.Failure.class, f -> assertThat(f.code()).isEqualTo(ErrorCode.SESSION_EXPIRED));
    assertThat(sessions(10, 0).sessions())
        .extracting(Result.SessionView::sessionId)
        .containsExactly(operator.sessionId);
    assertThat(h.lastEffects()).contains(new Effect.SessionEnded(dead.sessionId));
  }

  @Test
  void endingASessionThatDoesNotExistIsNotFoundAndChangesNothing() {
    h.connect();
    Result result = operator.call(new Operation.EndSession(999));
    assertThat(result)
        .isInstanceOfSatisfying(
            Result.Failure.class, f -> assertThat(f.code()).isEqualTo(ErrorCode.NOT_FOUND));
    assertThat(h.machine.sessions()).hasSize(2);
  }

  @Test
  void endingOnesOwnSessionThisWayIsRefused() {
    Result result = operator.call(new Operation.EndSession(operator.sessionId));
    assertThat(result)
        .isInstanceOfSatisfying(
            Result.Failure.class, f -> assertThat(f.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThat(sessions(10, 0).sessions()).hasSize(1);
  }

  @Test
  void aClientDescriptionOverTheLimitIsRefusedAndOpensNoSession() {
    Result result =
        h.answer(new Command.OpenSession(DEFAULT_TTL, new ClientInfo("n".repeat(256), "host", 1)));
    assertThat(result)
        .isInstanceOfSatisfying(
            Result.Failure.class,
            f -> {
              assertThat(f.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
              assertThat(f.message()).startsWith("clientName");
            });
    assertThat(sessions(10, 0).sessions()).hasSize(1);
  }

  @Test
  void aSnapshotKeepsEachSessionsClientAndOpeningTime() throws IOException {
    h.connect(DEFAULT_TTL, worker);
    h.advance(SECOND);
    h.connect(DEFAULT_TTL, new ClientInfo("é", "h", 1));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    h.machine.writeSnapshot(new DataOutputStream(bytes));

    SemaphoreMachine restored =
        SemaphoreMachine.readSnapshot(
            Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

    Query list = new Query.ListSessions(10, 0);
    assertThat(restored.query(list)).isEqualTo(h.machine.query(list));
    assertThat(((Result.SessionList) restored.query(list).result()).sessions())
        .extracting(Result.SessionView::client)
        .containsAll(List.of(worker, new ClientInfo("é", "h", 1)));
  }
}
