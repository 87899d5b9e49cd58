package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.core.Command;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Delete;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.Welcome;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.LocalReplicator;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import io.semafor.server.security.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit log records an audited change with the outcome it had, whichever connection its answer
 * goes to: the answer may find the session resumed on another connection, or never come from this
 * node (it stopped leading first) — then the outcome is logged as unknown.
 */
class AuditedOutcomeTest {
  /** Deletes held back from the state machine until the test lets them through. */
  private final List<Runnable> heldDeletes = new CopyOnWriteArrayList<>();

  private SemaforServer server;
  private String ops;

  @BeforeEach
  void start(@TempDir Path dir) throws Exception {
    Tokens.Issued issued = Tokens.issue("ops", null, new SecureRandom());
    ops = issued.token();
    Path authFile = dir.resolve("auth.json");
    Files.writeString(
        authFile,
        new AuthFile(
                List.of(issued.entry()),
                List.of(new AuthFile.Rule("ops", "", List.of("read", "admin", "cluster"))))
            .toJson());
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).security(Security.of(authFile)).build(),
            new ReplicatorFactory() {
              @Override
              public <C, R, S> Replicator<C, R, S> create(
                  SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
                return new HoldingDeletes<>(new LocalReplicator<>(machine, listener), listener);
              }
            });
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** Lets the local replicator apply everything but deletes, which wait in {@link #heldDeletes}. */
  private final class HoldingDeletes<C, R, S> implements Replicator<C, R, S> {
    private final LocalReplicator<C, R, S> inner;
    private final ApplyListener<C, R, S> listener;

    HoldingDeletes(LocalReplicator<C, R, S> inner, ApplyListener<C, R, S> listener) {
      this.inner = inner;
      this.listener = listener;
    }

    @Override
    public void submit(Command command, @Nullable C context) {
      if (command instanceof Command.Request r && r.operation() instanceof Operation.Delete) {
        heldDeletes.add(() -> inner.submit(command, context));
        heldDeletes.add(() -> listener.refused(command, context, "127.0.0.1:1"));
      } else {
        inner.submit(command, context);
      }
    }

    @Override
    public void read(Query query, @Nullable R context) {
      inner.read(query, context);
    }

    @Override
    public void snapshot(@Nullable S context) {
      inner.snapshot(context);
    }

    @Override
    public long logTime() {
      return inner.logTime();
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  private WireClient connect() throws Exception {
    WireClient c = new WireClient(server.address());
    Welcome w = c.hello(Hello.newBuilder().setToken(ops));
    assertThat(w.hasFailure()).as("welcome %s", w).isFalse();
    return c;
  }

  /**
   * The next response on {@code c}, passing over other frames the server may send first (a resumed
   * session's acknowledgements, for one: their order against the answer is the server's choice).
   */
  private static Response nextResponse(WireClient c) throws java.io.IOException {
    for (int i = 0; i < 100; i++) {
      io.semafor.protocol.v1.ServerFrame f = c.receive();
      if (f.hasResponse()) {
        return f.getResponse();
      }
    }
    throw new AssertionError("no response in 100 frames");
  }

  /** Waits until an audit line by ops holds {@code action} and {@code outcome}. */
  private static void awaitLine(AuditCapture audit, String action, String outcome) {
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(audit.lines())
                    .anyMatch(
                        l ->
                            l.contains(action)
                                && l.contains("principal=ops")
                                && l.contains(outcome)));
  }

  private static Request.Builder delete(String n) {
    return Request.newBuilder().setDelete(Delete.newBuilder().setName(name(n)));
  }

  @Test
  void aChangeAnsweredOnTheConnectionItsSessionMovedToIsAuditedWithItsOutcome() throws Exception {
    try (AuditCapture audit = AuditCapture.start();
        WireClient first = connect()) {
      first.call(
          Request.newBuilder().setCreate(Create.newBuilder().setName(name("x")).setInitial(1)));
      long id = first.request(delete("x"));
      await().atMost(Duration.ofSeconds(5)).until(() -> heldDeletes.size() == 2);
      try (WireClient second = new WireClient(server.address())) {
        Welcome resumed =
            second.hello(
                Hello.newBuilder()
                    .setToken(ops)
                    .setSessionId(first.sessionId)
                    .setSessionSecret(first.sessionSecret));
        assertThat(resumed.getResumed()).isTrue();
        // the server sends the Welcome before it attaches the session to this connection; an
        // answer to a request sent here comes after the attach (same event loop, in order)
        second.call(
            Request.newBuilder().setCreate(Create.newBuilder().setName(name("z")).setInitial(1)));
        heldDeletes.get(0).run(); // applied now: the answer goes where the session is
        Response answer = nextResponse(second);
        assertThat(answer.getId()).isEqualTo(id);
        assertThat(answer.hasFailure()).isFalse();
        awaitLine(audit, "delete 'x'", "outcome=ok");
      }
    }
  }

  @Test
  void aChangeThisNodeStoppedLeadingBeforeApplyingIsAuditedAsUnknown() throws Exception {
    try (AuditCapture audit = AuditCapture.start();
        WireClient client = connect()) {
      client.request(delete("y"));
      await().atMost(Duration.ofSeconds(5)).until(() -> heldDeletes.size() == 2);
      heldDeletes.get(1).run(); // refused: this node no longer leads
      assertThat(client.closedByServer()).isTrue();
      awaitLine(audit, "delete 'y'", "outcome=\"UNKNOWN: NOT_LEADER");
    }
  }
}
