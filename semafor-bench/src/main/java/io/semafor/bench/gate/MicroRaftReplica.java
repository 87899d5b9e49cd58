package io.semafor.bench.gate;

import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.semafor.microraft.MemberEndpoint;
import io.semafor.microraft.NodeLoop;
import io.semafor.microraft.PeerTransport;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The gate's MicroRaft side: a MicroRaft node on one {@link NodeLoop}, which also carries the
 * node's peer connections ({@link PeerTransport}), so that receiving a message, running Raft and
 * sending the answers happen on one thread without a hand-off. The state machine does nothing; the
 * log is written to a file and not forced ({@link UnforcedLogStore}). Commands are batched as
 * Semafor's {@code EntrySender} batches them, each command carrying {@code commandBytes} bytes,
 * with at most {@code maxInFlight} entries in flight.
 */
final class MicroRaftReplica implements GateReplica {
  /** Items in one entry at most, as {@code EntrySender}. */
  private static final int MAX_BATCH = 8192;

  private final MemberEndpoint self;
  private final NodeLoop loop;
  private final PeerTransport transport;
  private final UnforcedLogStore store;
  private final RaftNode node;
  private final int commandBytes;
  private final int maxInFlight;

  private final ConcurrentLinkedQueue<Committed> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();

  MicroRaftReplica(
      String nodeId,
      List<GroupMember> members,
      Path dataDir,
      boolean favoured,
      int commandBytes,
      int maxInFlight,
      boolean fsync) {
    this.commandBytes = commandBytes;
    this.maxInFlight = maxInFlight;
    List<RaftEndpoint> endpoints = new ArrayList<>();
    MemberEndpoint me = null;
    for (GroupMember p : members) {
      MemberEndpoint e = new MemberEndpoint(p.id(), p.host(), p.raftPort(), p.clientPort());
      endpoints.add(e);
      if (p.id().equals(nodeId)) {
        me = e;
      }
    }
    if (me == null) {
      throw new IllegalArgumentException("--id: " + nodeId + " is not one of --peers");
    }
    self = me;
    try {
      store = new UnforcedLogStore(dataDir, fsync);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    loop = new NodeLoop("raft-" + nodeId);
    transport = new PeerTransport(self, loop);
    // The driving member times out first, so it is the one elected. MicroRaft counts heartbeats in
    // whole seconds: one a second, and a leader silent for 2 s is given up.
    RaftConfig config =
        RaftConfig.newBuilder()
            .setLeaderElectionTimeoutMillis(favoured ? 500 : 5_000)
            .setLeaderHeartbeatPeriodSecs(1)
            .setLeaderHeartbeatTimeoutSecs(favoured ? 2 : 10)
            .build();
    node =
        RaftNode.newBuilder()
            .setGroupId("gate")
            .setLocalEndpoint(self)
            .setInitialGroupMembers(endpoints)
            .setConfig(config)
            .setExecutor(loop)
            .setTransport(transport)
            .setStateMachine(new NothingMachine())
            .setStore(store)
            .build();
    transport.deliverTo(node::handle);
    node.start().join();
  }

  @Override
  public boolean leads() {
    return self.equals(node.getTerm().getLeaderEndpoint());
  }

  @Override
  public void submit(int client, Committed committed) {
    pending.add(committed);
    trySend();
  }

  /** Sends the queued commands as one entry unless {@code maxInFlight} entries are in flight. */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback handles both outcomes
  private void trySend() {
    while (!pending.isEmpty()) {
      int n = inFlight.get();
      if (n >= maxInFlight) {
        return;
      }
      if (!inFlight.compareAndSet(n, n + 1)) {
        continue;
      }
      List<Committed> batch = new ArrayList<>();
      for (Committed c; batch.size() < MAX_BATCH && (c = pending.poll()) != null; ) {
        batch.add(c);
      }
      if (batch.isEmpty()) {
        inFlight.decrementAndGet();
        continue;
      }
      byte[] payload = new byte[commandBytes * batch.size()];
      node.replicate(payload)
          .whenComplete(
              (result, failure) -> {
                try {
                  for (Committed c : batch) {
                    c.done(failure == null);
                  }
                } finally {
                  inFlight.decrementAndGet();
                  trySend();
                }
              });
    }
  }

  @Override
  public long commitIndex() {
    try {
      return node.getReport().get(5, TimeUnit.SECONDS).getResult().getLog().getCommitIndex();
    } catch (Exception e) {
      throw new IllegalStateException("no report from the MicroRaft node", e);
    }
  }

  @Override
  public void close() {
    try {
      node.terminate().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closing anyway
    }
    transport.close();
    loop.close();
    try {
      store.close();
    } catch (IOException e) {
      // the file is scratch
    }
  }
}
