package io.semafor.bench.gate;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.raft.RaftReplicator;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.ClusterSpec;
import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The gate's Ratis side: Semafor's own {@link RaftReplicator} (its {@code EntrySender}, Ratis
 * tuning and state machine) as a cluster node runs it, with the server edge replaced by the gate's
 * clients. Each client has a session and sends increments of one semaphore, acknowledging its
 * previous reply, as a real client's requests look in the log.
 */
final class RatisReplica implements GateReplica {
  private static final Name GATE = Name.of("gate");

  private final RaftReplicator<Asker, Void, Void> replicator;
  private long[] sessions = new long[0];
  private long[] nextRequest = new long[0];

  RatisReplica(
      String nodeId,
      List<GroupMember> peers,
      Path dataDir,
      boolean favoured,
      ClusterSpec.Durability durability) {
    // The driving member times out first, so it is the one elected (the others wait 5-10 s).
    Duration min = Duration.ofMillis(favoured ? 500 : 5_000);
    Duration max = Duration.ofMillis(favoured ? 1_000 : 10_000);
    ClusterSpec config =
        ClusterSpec.of(nodeId, peers, dataDir, durability).withElectionTimeouts(min, max);
    replicator = RaftReplicator.start(config, new SemaphoreMachine(), new Listener());
  }

  /** Opens one session per client and creates the semaphore they increment; on the leader. */
  void prepare(int clients) throws Exception {
    sessions = new long[clients];
    nextRequest = new long[clients];
    for (int c = 0; c < clients; c++) {
      Outcome opened = call(new Command.OpenSession(TimeUnit.HOURS.toNanos(1)));
      Reply reply = opened.reply();
      if (reply == null || !(reply.result() instanceof Result.SessionOpened session)) {
        throw new IllegalStateException("no session opened: " + opened);
      }
      sessions[c] = session.sessionId();
      nextRequest[c] = 1;
    }
    Operation create = new Operation.Create(GATE, 0, SemaphoreOptions.DEFAULT);
    call(new Command.Request(sessions[0], nextRequest[0]++, List.of(), create));
  }

  private Outcome call(Command command) throws Exception {
    CompletableFuture<Outcome> answer = new CompletableFuture<>();
    replicator.submit(
        command,
        outcome -> {
          if (outcome != null) {
            answer.complete(outcome);
          } else {
            answer.completeExceptionally(new IllegalStateException("refused: not the leader"));
          }
        });
    return answer.get(30, TimeUnit.SECONDS);
  }

  @Override
  public boolean leads() {
    return replicator.isLeader();
  }

  @Override
  public void submit(int client, Committed committed) {
    // one client has one command in flight, so its counter is only touched by its own chain
    long request = nextRequest[client]++;
    List<Long> acks = request > 1 ? List.of(request - 1) : List.of();
    replicator.submit(
        new Command.Request(sessions[client], request, acks, new Operation.Increment(GATE, 1)),
        outcome -> committed.done(outcome != null));
  }

  @Override
  public long commitIndex() {
    if (!(replicator.status().get("commitIndex") instanceof Number index)) {
      throw new IllegalStateException("the replicator's status has no commit index");
    }
    return index.longValue();
  }

  @Override
  public void close() {
    replicator.close();
  }

  /** Who submitted a command: told its outcome, or null if it was refused. */
  @FunctionalInterface
  private interface Asker {
    void done(@Nullable Outcome outcome);
  }

  /** Tells each command's asker how it went; this gate makes no reads or snapshots. */
  private static final class Listener implements ApplyListener<Asker, Void, Void> {
    @Override
    public void applied(Command command, @Nullable Asker asker, Outcome outcome, long logTime) {
      if (asker != null) {
        asker.done(outcome);
      }
    }

    @Override
    public void answered(Query query, @Nullable Void context, Reply reply, long logTime) {}

    @Override
    public void refused(Command command, @Nullable Asker asker, String leaderHint) {
      if (asker != null) {
        asker.done(null);
      }
    }
  }
}
