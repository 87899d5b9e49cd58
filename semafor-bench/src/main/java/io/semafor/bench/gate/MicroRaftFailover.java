package io.semafor.bench.gate;

import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.report.RaftNodeReport;
import io.semafor.microraft.MemberEndpoint;
import io.semafor.microraft.NodeLoop;
import io.semafor.microraft.PeerTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * How long MicroRaft 0.7 takes to fail over as it ships (decision 0043's open risk): per trial, a
 * fresh group of three members in this JVM, each on its own {@link NodeLoop} and {@link
 * PeerTransport} on 127.0.0.1; once the leader has committed an entry, the leader's loop and
 * sockets are shut at once (its peers see the connections close, as after a kill -9), and the time
 * runs until another member has committed a new entry as leader.
 *
 * <pre>
 * java -cp semafor-bench/target/benchmarks.jar io.semafor.bench.gate.MicroRaftFailover \
 *     [--trials 30] [--heartbeat-period-secs 1] [--heartbeat-timeout-secs 2] [--probe]
 *     [--stagger-ms 0]
 * </pre>
 *
 * <p>With {@code --probe}, a follower whose leader's connection closes and whose leader's port then
 * refuses connections ({@link PeerTransport#onPeerGone}) starts an election: the first of the
 * remaining members by id at once, each next one {@code --stagger-ms} later (0: all at once). It
 * hands its own node the {@code TriggerLeaderElectionRequest} that a leader sends when it transfers
 * leadership, in the gone leader's name, with the follower's own term and last entry (MicroRaft has
 * no other call that starts an election). The experiment of decision 0043, not a replicator's
 * design.
 */
public final class MicroRaftFailover {
  private static final RaftModelFactory MODEL = new DefaultRaftModelFactory();

  private MicroRaftFailover() {}

  public static void main(String[] args) throws Exception {
    int trials = 30;
    long period = 1;
    long timeout = 2;
    boolean probe = false;
    long stagger = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--trials" -> trials = Integer.parseInt(args[++i]);
        case "--heartbeat-period-secs" -> period = Long.parseLong(args[++i]);
        case "--heartbeat-timeout-secs" -> timeout = Long.parseLong(args[++i]);
        case "--probe" -> probe = true;
        case "--stagger-ms" -> stagger = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    RaftConfig config =
        RaftConfig.newBuilder()
            .setLeaderElectionTimeoutMillis(300)
            .setLeaderHeartbeatPeriodSecs(period)
            .setLeaderHeartbeatTimeoutSecs(timeout)
            .build();
    Histogram millis = new Histogram(3);
    List<Long> all = new ArrayList<>();
    for (int t = 0; t < trials; t++) {
      List<Member> group = startGroup(config, probe, stagger);
      try {
        Member leader = awaitLeader(group, 20_000);
        leader.node.replicate(new byte[8]).get(10, TimeUnit.SECONDS);
        long t0 = System.nanoTime();
        leader.crash();
        List<Member> rest = new ArrayList<>(group);
        rest.remove(leader);
        long ms = -1;
        long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && ms < 0) {
          Member next = leaderAmong(rest);
          if (next != null) {
            try {
              next.node.replicate(new byte[8]).get(1, TimeUnit.SECONDS);
              ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            } catch (Exception e) {
              // not leader yet, or not committed within a second: ask again
            }
          } else {
            Thread.sleep(5);
          }
        }
        if (ms < 0) {
          System.out.printf("trial %d: no new leader within 30 s%n", t + 1);
        } else {
          millis.recordValue(ms);
          all.add(ms);
          System.out.printf(
              "trial %d: %d ms (leader gone reported by %d of %d)%n",
              t + 1,
              ms,
              rest.stream().filter(m -> m.transport.peersGone() > 0).count(),
              rest.size());
        }
      } finally {
        for (Member m : group) {
          m.crash();
        }
      }
    }
    System.out.printf(
        "MicroRaft failover over %d trials (heartbeat %d s, timeout %d s%s): p50 %d ms, p95 %d ms,"
            + " max %d ms%n",
        all.size(),
        period,
        timeout,
        probe ? ", probing a closed leader" : "",
        millis.getValueAtPercentile(50),
        millis.getValueAtPercentile(95),
        millis.getMaxValue());
    System.out.println("all: " + all);
    System.exit(0);
  }

  private static List<Member> startGroup(RaftConfig config, boolean probe, long stagger)
      throws IOException {
    List<MemberEndpoint> endpoints = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        endpoints.add(new MemberEndpoint("n" + i, "127.0.0.1", s.getLocalPort(), 7400));
      }
    }
    List<Member> group = new ArrayList<>();
    for (MemberEndpoint self : endpoints) {
      NodeLoop loop = new NodeLoop("raft-" + self.id());
      PeerTransport transport = new PeerTransport(self, loop);
      RaftNode node =
          RaftNode.newBuilder()
              .setGroupId("failover")
              .setLocalEndpoint(self)
              .setInitialGroupMembers(new ArrayList<RaftEndpoint>(endpoints))
              .setConfig(config)
              .setExecutor(loop)
              .setTransport(transport)
              .setStateMachine(new NothingMachine())
              .build();
      transport.deliverTo(node::handle);
      if (probe) {
        transport.onPeerGone(gone -> electAfter(node, loop, self, gone, endpoints, stagger));
      }
      node.start().join();
      group.add(new Member(self, loop, transport, node));
    }
    return group;
  }

  /** Starts an election if {@code gone} still leads, after a delay by this member's rank. */
  @SuppressWarnings("FutureReturnValueIgnored") // the report's stage does everything
  private static void electAfter(
      RaftNode node,
      NodeLoop loop,
      MemberEndpoint self,
      MemberEndpoint gone,
      List<MemberEndpoint> endpoints,
      long staggerMillis) {
    long rank =
        endpoints.stream()
            .filter(e -> !e.equals(gone))
            .sorted(java.util.Comparator.comparing(MemberEndpoint::id))
            .takeWhile(e -> !e.equals(self))
            .count();
    loop.schedule(
        () ->
            node.getReport()
                .thenAccept(
                    ordered -> {
                      RaftNodeReport report = ordered.getResult();
                      if (!gone.equals(report.getTerm().getLeaderEndpoint())) {
                        return; // someone else leads already
                      }
                      node.handle(
                          MODEL
                              .createTriggerLeaderElectionRequestBuilder()
                              .setGroupId(node.getGroupId())
                              .setSender(gone)
                              .setTerm(report.getTerm().getTerm())
                              .setLastLogTerm(report.getLog().getLastLogOrSnapshotTerm())
                              .setLastLogIndex(report.getLog().getLastLogOrSnapshotIndex())
                              .build());
                    }),
        rank * staggerMillis,
        TimeUnit.MILLISECONDS);
  }

  private static Member awaitLeader(List<Member> group, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (System.nanoTime() < deadline) {
      Member leader = leaderAmong(group);
      if (leader != null) {
        return leader;
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException("no leader within " + millis + " ms");
  }

  private static @Nullable Member leaderAmong(List<Member> members) {
    for (Member m : members) {
      if (m.self.equals(m.node.getTerm().getLeaderEndpoint())) {
        return m;
      }
    }
    return null;
  }

  private record Member(
      MemberEndpoint self, NodeLoop loop, PeerTransport transport, RaftNode node) {
    /** Closes the sockets and stops the thread at once, as a killed process's would be. */
    void crash() {
      transport.close();
      loop.close();
    }
  }
}
