package io.semafor.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One round of connecting: a staggered race over the addresses, the first session winning. */
class DialerTest {
  private static final long STAGGER = TimeUnit.MILLISECONDS.toNanos(100);
  private static final InetSocketAddress A = InetSocketAddress.createUnresolved("a", 1);
  private static final InetSocketAddress B = InetSocketAddress.createUnresolved("b", 2);
  private static final InetSocketAddress C = InetSocketAddress.createUnresolved("c", 3);

  private final ExecutorService executor = Executors.newCachedThreadPool();

  /** A fake session over a fake connection: records whether it was abandoned. */
  private static final class Session implements Dialer.Handshake {
    final InetSocketAddress address;
    final CountDownLatch abandoned = new CountDownLatch(1);

    Session(InetSocketAddress address) {
      this.address = address;
    }

    @Override
    public void abandon() {
      abandoned.countDown();
    }
  }

  /** What each address does when tried, and the order they were tried in. */
  private static final class FakeCluster implements Dialer.Attempt<Session> {
    interface Behaviour {
      Session answer(InetSocketAddress address) throws IOException;
    }

    final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();
    final List<String> tried = new CopyOnWriteArrayList<>();

    FakeCluster on(InetSocketAddress address, Behaviour behaviour) {
      behaviours.put(address.getHostString(), behaviour);
      return this;
    }

    @Override
    public Session run(InetSocketAddress address) throws IOException {
      tried.add(address.getHostString());
      Behaviour b = behaviours.get(address.getHostString());
      if (b == null) {
        throw new ConnectException("refused");
      }
      return b.answer(address);
    }
  }

  private Dialer<Session> dialer(FakeCluster cluster) {
    return new Dialer<>(
        executor,
        STAGGER,
        cluster,
        e -> e.leader.isEmpty() ? null : InetSocketAddress.createUnresolved(e.leader, 9));
  }

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @Test
  @Timeout(10)
  void aFrozenFirstAddressDoesNotHoldUpTheNextOne() throws Exception {
    CountDownLatch thaw = new CountDownLatch(1);
    Session[] late = new Session[1];
    FakeCluster cluster =
        new FakeCluster()
            .on(
                A,
                address -> {
                  await(thaw); // accepted the connection, never answers the Hello until thawed
                  late[0] = new Session(address);
                  return late[0];
                })
            .on(B, Session::new);
    long start = System.nanoTime();

    Dialer.Outcome<Session> outcome = dialer(cluster).race(List.of(A, B, C));

    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(outcome).isInstanceOf(Dialer.Connected.class);
    assertThat(((Dialer.Connected<Session>) outcome).handshake().address).isEqualTo(B);
    assertThat(tookMs).isLessThan(2_000); // one stagger (100 ms), not A's whole timeout
    assertThat(cluster.tried).containsExactly("a", "b");
    thaw.countDown();
    // A answers after the round was decided: its session is closed unused
    org.awaitility.Awaitility.await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> late[0] != null && late[0].abandoned.getCount() == 0);
  }

  @Test
  @Timeout(10)
  void addressesThatFailAtOnceAreTriedInTurnWithoutWaitingTheStagger() {
    FakeCluster cluster = new FakeCluster().on(C, Session::new);
    long start = System.nanoTime();

    Dialer.Outcome<Session> outcome = dialer(cluster).race(List.of(A, B, C));

    assertThat(outcome).isInstanceOf(Dialer.Connected.class);
    assertThat(cluster.tried).containsExactly("a", "b", "c");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isLessThan(STAGGER / 1_000_000 * 2);
  }

  @Test
  @Timeout(10)
  void theLeaderAMemberNamesIsTriedNextAndOnlyOnce() {
    FakeCluster cluster =
        new FakeCluster()
            .on(
                A,
                address -> {
                  throw new NotLeader("not the leader", "leader");
                })
            .on(
                B,
                address -> {
                  throw new NotLeader("not the leader", "leader");
                });

    Dialer.Outcome<Session> outcome = dialer(cluster).race(List.of(A, B, C));

    assertThat(cluster.tried).containsExactly("a", "leader", "b", "c");
    assertThat(outcome).isInstanceOf(Dialer.Failed.class);
    assertThat(((Dialer.Failed<Session>) outcome).anyAnswered()).isTrue();
  }

  @Test
  @Timeout(10)
  void aRefusalIsReportedWhenNoAddressOpensASession() {
    FakeCluster cluster =
        new FakeCluster()
            .on(
                B,
                address -> {
                  throw new SemaforException(ErrorCode.UNAUTHENTICATED, "bad token");
                });

    Dialer.Outcome<Session> outcome = dialer(cluster).race(List.of(A, B, C));

    assertThat(outcome).isInstanceOf(Dialer.Failed.class);
    Dialer.Failed<Session> failed = (Dialer.Failed<Session>) outcome;
    assertThat(failed.anyAnswered()).isFalse();
    assertThat(failed.refusal()).isNotNull();
    assertThat(failed.refusal().code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
  }

  @Test
  @Timeout(10)
  void whenTwoAttemptsBothOpenASessionTheLoserIsAbandoned() throws Exception {
    CountDownLatch bothStarted = new CountDownLatch(2);
    Session[] sessions = new Session[2];
    FakeCluster cluster =
        new FakeCluster()
            .on(
                A,
                address -> {
                  bothStarted.countDown();
                  await(bothStarted);
                  sessions[0] = new Session(address);
                  return sessions[0];
                })
            .on(
                B,
                address -> {
                  bothStarted.countDown();
                  await(bothStarted);
                  sessions[1] = new Session(address);
                  return sessions[1];
                });

    Dialer.Outcome<Session> outcome = dialer(cluster).race(List.of(A, B));

    Session winner = ((Dialer.Connected<Session>) outcome).handshake();
    org.awaitility.Awaitility.await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> sessions[0] != null && sessions[1] != null);
    Session loser = winner == sessions[0] ? sessions[1] : sessions[0];
    assertThat(loser.abandoned.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(winner.abandoned.getCount()).isEqualTo(1);
  }

  @Test
  @Timeout(10)
  void noAddressIsAFailureWithNothingTried() {
    FakeCluster cluster = new FakeCluster();

    Dialer.Outcome<Session> outcome = dialer(cluster).race(List.of());

    assertThat(outcome).isEqualTo(new Dialer.Failed<Session>(false, null, null));
    assertThat(cluster.tried).isEmpty();
  }

  private static void await(CountDownLatch latch) throws IOException {
    try {
      if (!latch.await(8, TimeUnit.SECONDS)) {
        throw new IOException("test latch timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
