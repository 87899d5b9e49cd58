package io.semafor.microraft;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.model.message.RaftMessage;
import io.microraft.statemachine.StateMachine;
import io.semafor.embedded.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real MicroRaft nodes on 127.0.0.1, each on its own {@link NodeLoop}, over real sockets. */
class PeerTransportTest {
  private final List<Member> started = new ArrayList<>();
  private final List<AutoCloseable> others = new ArrayList<>();

  @AfterEach
  void stopEverything() throws Exception {
    for (Member m : started) {
      m.stop();
    }
    for (AutoCloseable c : others) {
      c.close();
    }
  }

  @Test
  void threeMembersElectALeaderAndEveryMemberAppliesWhatItCommitsInOrder() {
    List<MemberEndpoint> group = endpoints(3);
    group.forEach(e -> start(e, group));
    Member leader = awaitLeader(started);

    List<CompletableFuture<?>> commits = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      commits.add(leader.node.replicate(ByteBuffer.allocate(4).putInt(i).array()));
    }
    CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new))
        .orTimeout(10, SECONDS)
        .join();

    for (Member m : started) {
      await().atMost(Duration.ofSeconds(10)).until(() -> m.machine.applied.size() == 200);
      assertThat(m.machine.applied).isEqualTo(numbers(200));
    }
  }

  @Test
  void theOtherTwoElectANewLeaderWhenTheLeaderStops() {
    List<MemberEndpoint> group = endpoints(3);
    group.forEach(e -> start(e, group));
    Member first = awaitLeader(started);
    first.node.replicate(ByteBuffer.allocate(4).putInt(0).array()).orTimeout(10, SECONDS).join();

    first.stop();
    List<Member> rest = new ArrayList<>(started);
    rest.remove(first);
    Member second = awaitLeader(rest);
    second.node.replicate(ByteBuffer.allocate(4).putInt(1).array()).orTimeout(10, SECONDS).join();

    for (Member m : rest) {
      await().atMost(Duration.ofSeconds(10)).until(() -> m.machine.applied.size() == 2);
      assertThat(m.machine.applied).isEqualTo(numbers(2));
    }
  }

  @Test
  void aLeaderWhoseProcessIsGoneIsReportedByTheFollowersItWasSendingTo() {
    List<MemberEndpoint> group = endpoints(3);
    group.forEach(e -> start(e, group));
    Member leader = awaitLeader(started);
    leader.node.replicate(ByteBuffer.allocate(4).putInt(0).array()).orTimeout(10, SECONDS).join();
    List<Member> followers = new ArrayList<>(started);
    followers.remove(leader);
    for (Member f : followers) {
      // the leader has been sending to each: a member that started last may not have had a
      // message yet when a majority committed (a loaded machine), and then nothing ties its
      // connection to the leader
      await().atMost(Duration.ofSeconds(10)).until(() -> f.machine.applied.size() == 1);
    }
    java.util.Set<String> reported = java.util.concurrent.ConcurrentHashMap.newKeySet();
    followers.forEach(
        f -> f.transport.onPeerGone(gone -> reported.add(f.endpoint.id() + " lost " + gone.id())));

    leader.stop(); // its port closes with its connections, as a killed process's do

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(reported)
                    .containsExactlyInAnyOrder(
                        followers.get(0).endpoint.id() + " lost " + leader.endpoint.id(),
                        followers.get(1).endpoint.id() + " lost " + leader.endpoint.id()));
  }

  @Test
  void aMessageToAMemberNotConnectedYetIsSentOnceTheConnectionIsUp() throws Exception {
    try (ServerSocket peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      MemberEndpoint target = new MemberEndpoint("n2", "127.0.0.1", peer.getLocalPort(), 7400);
      MemberEndpoint self = endpoints(1).get(0);
      NodeLoop loop = new NodeLoop("raft-" + self.id());
      PeerTransport transport = new PeerTransport(self, loop);
      others.add(loop);
      others.add(0, transport);
      RaftMessage vote =
          new io.microraft.model.impl.DefaultRaftModelFactory()
              .createVoteRequestBuilder()
              .setGroupId("test")
              .setSender(self)
              .setTerm(7)
              .setLastLogTerm(6)
              .setLastLogIndex(42)
              .setSticky(false)
              .build();

      loop.execute(() -> transport.send(target, vote)); // the first message: no connection yet

      peer.setSoTimeout(5_000);
      try (Socket accepted = peer.accept()) {
        accepted.setSoTimeout(5_000);
        java.io.DataInputStream in = new java.io.DataInputStream(accepted.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        RaftMessage read = new PeerCodec().read(io.netty.buffer.Unpooled.wrappedBuffer(frame));
        assertThat(read).usingRecursiveComparison().isEqualTo(vote);
      }
      assertThat(transport.droppedUnconnected()).isZero();
    }
  }

  @Test
  void aFrameThatIsNotAMessageClosesItsConnectionAndChangesNothing() throws IOException {
    List<MemberEndpoint> group = endpoints(3);
    group.forEach(e -> start(e, group));
    Member leader = awaitLeader(started);
    Member follower = started.stream().filter(m -> m != leader).findFirst().orElseThrow();

    try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), follower.endpoint.port())) {
      raw.setSoTimeout(5_000);
      OutputStream out = raw.getOutputStream();
      out.write(new byte[] {0, 0, 0, 5, (byte) 0xFF, 1, 2, 3, 4});
      out.flush();
      InputStream in = raw.getInputStream();
      assertThat(in.read()).as("the member closes the connection").isEqualTo(-1);
    }
    leader.node.replicate(ByteBuffer.allocate(4).putInt(0).array()).orTimeout(10, SECONDS).join();

    assertThat(follower.transport.malformedFrames()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> follower.machine.applied.size() == 1);
  }

  @Test
  void aPeerThatNeverReadsCostsDroppedMessagesNotUnboundedMemory() throws IOException {
    ServerSocket deaf = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    List<Socket> held = new CopyOnWriteArrayList<>();
    Thread acceptor =
        new Thread(
            () -> {
              while (!deaf.isClosed()) {
                try {
                  held.add(deaf.accept()); // accepted, and never read
                } catch (IOException e) {
                  return;
                }
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
    others.add(
        () -> {
          deaf.close();
          for (Socket s : held) {
            s.close();
          }
        });
    List<MemberEndpoint> group = new ArrayList<>(endpoints(2));
    MemberEndpoint silent = new MemberEndpoint("deaf", "127.0.0.1", deaf.getLocalPort(), 7400);
    List<MemberEndpoint> all = new ArrayList<>(group);
    all.add(silent);
    group.forEach(e -> start(e, all));
    Member leader = awaitLeader(started);

    List<CompletableFuture<?>> commits = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      byte[] payload = new byte[16 << 10];
      ByteBuffer.wrap(payload).putInt(i);
      commits.add(leader.node.replicate(payload));
    }
    CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new))
        .orTimeout(60, SECONDS)
        .join();

    await().atMost(Duration.ofSeconds(20)).until(() -> leader.transport.droppedUnwritable() > 0);
    assertThat(held).as("the deaf peer was connected").isNotEmpty();
  }

  private Member start(MemberEndpoint self, List<MemberEndpoint> group) {
    NodeLoop loop = new NodeLoop("raft-" + self.id());
    PeerTransport transport = new PeerTransport(self, loop);
    CountingMachine machine = new CountingMachine();
    RaftNode node =
        RaftNode.newBuilder()
            .setGroupId("test")
            .setLocalEndpoint(self)
            .setInitialGroupMembers(new ArrayList<RaftEndpoint>(group))
            .setConfig(
                RaftConfig.newBuilder()
                    .setLeaderElectionTimeoutMillis(300)
                    // a timeout of one period lets an idle leader step down between two
                    // heartbeats (its followers' last answers are a period old): two periods
                    .setLeaderHeartbeatPeriodSecs(1)
                    .setLeaderHeartbeatTimeoutSecs(2)
                    .build())
            .setExecutor(loop)
            .setTransport(transport)
            .setStateMachine(machine)
            .build();
    transport.deliverTo(node::handle);
    node.start().orTimeout(10, SECONDS).join();
    Member member = new Member(self, loop, transport, node, machine);
    started.add(member);
    return member;
  }

  private static Member awaitLeader(List<Member> among) {
    return await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                among.stream()
                    .filter(m -> m.endpoint.equals(m.node.getTerm().getLeaderEndpoint()))
                    .findFirst(),
            Optional::isPresent)
        .orElseThrow();
  }

  private static List<MemberEndpoint> endpoints(int n) {
    List<MemberEndpoint> list = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      list.add(new MemberEndpoint("n" + i, "127.0.0.1", freePort(), 7400));
    }
    return list;
  }

  private static int freePort() {
    return FreePorts.next();
  }

  private static List<Integer> numbers(int n) {
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(i);
    }
    return list;
  }

  private static final class Member {
    final MemberEndpoint endpoint;
    final NodeLoop loop;
    final PeerTransport transport;
    final RaftNode node;
    final CountingMachine machine;
    private boolean stopped;

    Member(
        MemberEndpoint endpoint,
        NodeLoop loop,
        PeerTransport transport,
        RaftNode node,
        CountingMachine machine) {
      this.endpoint = endpoint;
      this.loop = loop;
      this.transport = transport;
      this.node = node;
      this.machine = machine;
    }

    void stop() {
      if (stopped) {
        return;
      }
      stopped = true;
      node.terminate().orTimeout(5, SECONDS).exceptionally(e -> null).join();
      transport.close();
      loop.close();
    }
  }

  /** Keeps the first four bytes of every entry it applies, as an int, in order. */
  private static final class CountingMachine implements StateMachine {
    private static final byte[] NEW_TERM = new byte[0];
    final List<Integer> applied = new CopyOnWriteArrayList<>();

    @Override
    public @Nullable Object runOperation(long commitIndex, @Nullable Object operation) {
      if (operation instanceof byte[] b && b.length >= 4) {
        applied.add(ByteBuffer.wrap(b).getInt());
      }
      return null;
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
      chunks.accept(NEW_TERM);
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {}

    @Override
    public Object getNewTermOperation() {
      return NEW_TERM;
    }
  }
}
