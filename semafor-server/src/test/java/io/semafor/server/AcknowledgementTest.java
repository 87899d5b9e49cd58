package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.SemaphoreMachine;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.CloseSession;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.LocalReplicator;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An acknowledgement is in before the client is told so (docs/semantics.md#delivery): a client
 * forgets the acknowledgements a keep-alive carried once its pong comes, and those a request
 * carried once it is answered, so neither may come before they are applied. Otherwise a leader that
 * dies between the answer and the commit loses them, and the session's end gives back grants the
 * client used.
 */
class AcknowledgementTest {
  private SemaforServer server;

  /** Holds every {@code Acknowledge} until released: a commit that is slow to come. */
  private final List<Runnable> heldAcknowledgements = new ArrayList<>();

  private volatile boolean holding;

  @BeforeEach
  void start() throws InterruptedException {
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).defaultSessionTtl(Duration.ofSeconds(10)).build(),
            new ReplicatorFactory() {
              @Override
              public <C, R, S> Replicator<C, R, S> create(
                  SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
                return new AcknowledgementsHeld<>(new LocalReplicator<>(machine, listener));
              }
            });
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void withoutIdsTheKeepAlivePongWaitsUntilItsAcknowledgementsAreAppliedAndSoDoThoseBehindIt()
      throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.hello(0, 0);
      client.call(create("x", 1));
      long granted = client.call(acquire("x")).getId();
      holding = true;

      client.send(keepAlive(List.of(granted)));
      client.send(keepAlive(List.of()));
      client.send(read("x"));

      // frames go out in order: a pong sent before the acknowledgement was applied would come first
      assertThat(client.receive().hasReadResponse()).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> held() == 1);
      release();
      assertThat(client.receive().hasPong()).isTrue();
      assertThat(client.receive().hasPong()).as("the plain keep-alive behind it").isTrue();
    }
  }

  @Test
  void withIdsAKeepAliveWithoutAcknowledgementsIsAnsweredAtOnceThoughOneBeforeItWaits()
      throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.hello(0, 0);
      client.call(create("x", 1));
      long granted = client.call(acquire("x")).getId();
      holding = true;

      client.send(keepAlive(1, List.of(granted)));
      client.send(keepAlive(2, List.of()));

      // a client blocked past its deadline is woken by the second pong: it must not wait for a
      // commit
      assertThat(client.receive().getPong().getId()).isEqualTo(2);
      await().atMost(Duration.ofSeconds(5)).until(() -> held() == 1);
      release();
      assertThat(client.receive().getPong().getId()).isEqualTo(1);
    }
  }

  @Test
  void withIdsASyncKeepAliveIsAnsweredOnceWhatCameBeforeIsApplied() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.hello(0, 0);
      holding = true;

      client.send(
          ClientFrame.newBuilder()
              .setKeepAlive(KeepAlive.newBuilder().setId(7).setSync(true))
              .build());
      client.send(read("x"));

      assertThat(client.receive().hasReadResponse()).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> held() == 1);
      release();
      assertThat(client.receive().getPong().getId()).isEqualTo(7);
    }
  }

  @Test
  void aKeepAliveWithoutAcknowledgementsIsAnsweredAtOnce() throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.hello(0, 0);
      holding = true;

      client.send(keepAlive(List.of()));

      assertThat(client.receive().hasPong()).isTrue();
    }
  }

  @Test
  void aRequestRefusedAtTheEdgeIsAnsweredOnlyOnceTheAcknowledgementsItCarriedAreApplied()
      throws IOException {
    try (WireClient client = new WireClient(server.address())) {
      client.hello(0, 0);
      client.call(create("x", 1));
      long granted = client.call(acquire("x")).getId();
      holding = true;

      long refused = client.request(Request.newBuilder().addAcks(granted)); // names no operation
      client.send(read("x"));

      assertThat(client.receive().hasReadResponse()).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> held() == 1);
      release();
      ServerFrame answer = client.receive();
      assertThat(answer.getResponse().getId()).isEqualTo(refused);
      assertThat(answer.getResponse().getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
  }

  @Test
  void aGrantAcknowledgedOnARefusedRequestIsNotGivenBackWhenTheSessionEnds() throws IOException {
    try (WireClient client = new WireClient(server.address());
        WireClient watcher = new WireClient(server.address())) {
      watcher.hello(0, 0);
      client.hello(0, 0);
      client.call(create("x", 1));
      long granted = client.call(acquire("x")).getId();

      Request.Builder noOperation = Request.newBuilder().addAcks(granted);
      assertThat(client.call(noOperation).getFailure().getCode())
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
      client.call(Request.newBuilder().setCloseSession(CloseSession.getDefaultInstance()));

      assertThat(watcher.status("x").getValue()).as("the grant was the client's for good").isZero();
    }
  }

  private int held() {
    synchronized (heldAcknowledgements) {
      return heldAcknowledgements.size();
    }
  }

  private void release() {
    holding = false;
    List<Runnable> due;
    synchronized (heldAcknowledgements) {
      due = new ArrayList<>(heldAcknowledgements);
      heldAcknowledgements.clear();
    }
    due.forEach(Runnable::run);
  }

  private static Request.Builder create(String name, long initial) {
    return Request.newBuilder()
        .setCreate(Create.newBuilder().setName(name(name)).setInitial(initial));
  }

  /** A non-owned take: in transit until acknowledged, then the client's for good. */
  private static Request.Builder acquire(String name) {
    return Request.newBuilder().setAcquire(Acquire.newBuilder().setName(name(name)).setAmount(1));
  }

  /** A keep-alive without an id: its pong comes in order. */
  private static ClientFrame keepAlive(List<Long> acks) {
    return keepAlive(0, acks);
  }

  private static ClientFrame keepAlive(long id, List<Long> acks) {
    return ClientFrame.newBuilder()
        .setKeepAlive(KeepAlive.newBuilder().setId(id).addAllAcks(acks))
        .build();
  }

  private static ClientFrame read(String name) {
    return ClientFrame.newBuilder()
        .setRead(Read.newBuilder().setId(1).setGet(Get.newBuilder().setName(name(name))))
        .build();
  }

  /** A local replicator that keeps {@code Acknowledge} commands back while {@link #holding}. */
  private final class AcknowledgementsHeld<C, R, S> implements Replicator<C, R, S> {
    private final Replicator<C, R, S> delegate;

    AcknowledgementsHeld(Replicator<C, R, S> delegate) {
      this.delegate = delegate;
    }

    @Override
    public void submit(Command command, @Nullable C context) {
      if (holding && command instanceof Command.Acknowledge) {
        synchronized (heldAcknowledgements) {
          heldAcknowledgements.add(() -> delegate.submit(command, context));
        }
        return;
      }
      delegate.submit(command, context);
    }

    @Override
    public void read(Query query, @Nullable R context) {
      delegate.read(query, context);
    }

    @Override
    public void snapshot(@Nullable S context) {
      delegate.snapshot(context);
    }

    @Override
    public long logTime() {
      return delegate.logTime();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
