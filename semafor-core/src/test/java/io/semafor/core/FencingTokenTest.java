package io.semafor.core;

import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.SemaphoreOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#tokens-and-revisions: fencing tokens and revisions. */
class FencingTokenTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void everyGrantOnASemaphoreHasAStrictlyLargerToken() {
    c.create("x", 100);
    List<Long> tokens = new ArrayList<>();
    tokens.add(c.granted(c.acquire("x", 1, 0)).token());
    tokens.add(c.granted(c.decrement("x", 2, 0)).token());
    tokens.add(c.granted(c.acquireOwned("x", 1, 0)).token());
    tokens.add(((Result.LeaseGranted) c.result(c.acquireLease("x", 1, SECOND, 0))).token());
    tokens.add(((Result.SemopDone) c.result(c.semop(0, SemopOp.of("x", -1)))).token());
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aNameCreatedAgainNeverReusesAToken() {
    c.create("x", 1);
    long before = c.granted(c.acquire("x", 1, 0)).token();
    c.delete("x");
    c.create("x", 1);
    assertThat(c.granted(c.acquire("x", 1, 0)).token()).isGreaterThan(before);
  }

  @Test
  void tokensKeepIncreasingAcrossASnapshotAndRestore() throws IOException {
    c.create("x", 10);
    long before = c.granted(c.acquire("x", 1, 0)).token();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    h.machine.writeSnapshot(new DataOutputStream(bytes));
    SemaphoreMachine restored =
        SemaphoreMachine.readSnapshot(
            Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

    Outcome outcome =
        restored.apply(
            h.revision() + 1,
            h.now(),
            new Command.Request(
                c.sessionId,
                c.lastRequestId() + 1,
                new Operation.Acquire(Name.of("x"), 1, 0, false)));

    Reply reply = outcome.reply();
    assertThat(reply).isNotNull();
    assertThat(((Result.Granted) reply.result()).token()).isGreaterThan(before);
  }

  @Test
  void everyReplyCarriesTheRevisionOfTheCommandThatProducedIt() {
    Outcome outcome =
        h.apply(
            new Command.Request(
                c.sessionId,
                c.lastRequestId() + 1,
                new Operation.Create(Name.of("x"), 0, SemaphoreOptions.DEFAULT)));
    Reply reply = outcome.reply();
    assertThat(reply).isNotNull();
    assertThat(reply.revision()).isEqualTo(h.revision()).isEqualTo(outcome.revision());
  }

  @Test
  void aLaterGrantCarriesTheRevisionOfTheCommandThatCausedIt() {
    c.create("x", 0);
    TestClient waiter = h.connect();
    long id = waiter.acquire("x", 1, Operation.FOREVER);
    c.increment("x", 1);
    long incrementRevision = h.revision();
    Reply grant =
        h.completions().stream().filter(r -> r.requestId() == id).findFirst().orElseThrow();
    assertThat(grant.revision()).isEqualTo(incrementRevision);
  }

  @Test
  void aRevisionThatDoesNotIncreaseIsRefused() {
    SemaphoreMachine machine = new SemaphoreMachine();
    machine.apply(5, 0, new Command.OpenSession(SECOND));
    assertThatThrownBy(() -> machine.apply(5, 0, new Command.OpenSession(SECOND)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("revision 5");
  }

  @Test
  void logTimeNeverRunsBackwards() {
    SemaphoreMachine machine = new SemaphoreMachine();
    machine.apply(1, 10 * SECOND, new Command.OpenSession(SECOND));
    machine.apply(2, 3 * SECOND, new Command.OpenSession(SECOND));
    assertThat(machine.now()).isEqualTo(10 * SECOND);
  }
}
