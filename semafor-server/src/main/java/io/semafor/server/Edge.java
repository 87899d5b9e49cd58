package io.semafor.server;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.SemaphoreMachine;
import io.semafor.core.TimerKey;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.SnapshotFile;
import io.semafor.server.security.Audit;
import io.semafor.server.security.Principal;
import io.semafor.server.wire.WireResults;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Carries out what the machine decided: answers go to the connection the session is attached to now
 * (or, for a session that no longer exists, to the connection that asked), timers are armed and
 * cancelled, sessions are tracked from start to end. Answers are held in an {@link Outbox} until
 * the batch ends. Runs on the applying thread.
 */
final class Edge
    implements ApplyListener<CommandOrigin, ReadOrigin, PendingSnapshot>,
        CommandOrigin.Answers,
        ReadOrigin.Answers {
  private final Sessions sessions;
  private final Timers timers;
  private final Outbox outbox = new Outbox();
  private final ServerMetrics metrics;
  private volatile long lastRevision;

  private final Consumer<String> dropClients;
  private final Consumer<Command> propose;

  /**
   * Whether a {@link Command.ContinueGrants} was proposed and is not yet applied: grants left
   * pending by several commands need one continuation in flight, not one each. (Per batch would not
   * do: a continuation can be applied in the very batch that proposed it.)
   */
  private final AtomicBoolean continuing = new AtomicBoolean();

  /**
   * This batch left grants pending: propose the continuation once its answers are written, so
   * slices go out no faster than the event loops write them. Applying thread only.
   */
  private boolean continueAfterFlush;

  /** Told what failed when the replicator cannot go on ({@link #failed(String, Throwable)}). */
  private final Consumer<String> failed;

  /**
   * An edge that calls {@code dropClients} with the leader's address when this node stops leading,
   * and {@code propose} for commands it proposes itself (after the current batch, from another
   * thread, and only while this node leads), and {@code failed} with what failed if the replicator
   * cannot go on.
   */
  Edge(
      Sessions sessions,
      Timers timers,
      ServerMetrics metrics,
      Consumer<String> dropClients,
      Consumer<Command> propose,
      Consumer<String> failed) {
    this.failed = failed;
    this.sessions = sessions;
    this.timers = timers;
    this.metrics = metrics;
    this.dropClients = dropClients;
    this.propose = propose;
  }

  @Override
  public void refused(Command command, @Nullable CommandOrigin origin, String leaderHint) {
    if (command instanceof Command.ContinueGrants) {
      continuing.set(false); // the leader continues: it proposes one when it takes over
    }
    if (origin != null) {
      origin.refused(command, leaderHint);
    }
  }

  @Override
  public void readRefused(Query query, @Nullable ReadOrigin origin, String leaderHint) {
    if (origin != null) {
      origin.refused(leaderHint);
    }
  }

  @Override
  public void snapshotTaken(@Nullable PendingSnapshot asked, SnapshotFile.Image image) {
    if (asked != null) {
      asked.connection().readAnswered();
      asked.connection().sendSnapshot(asked.id(), image);
    }
  }

  @Override
  public void snapshotRefused(@Nullable PendingSnapshot asked, String leaderHint) {
    if (asked != null) {
      asked.connection().readRefused(leaderHint);
    }
  }

  @Override
  public void restored(SemaphoreMachine machine, long logTime) {
    this.machine = machine;
    lastRevision = machine.revision();
    watches.restored(machine); // its watchers are resynced when next caught up
    for (Effect.ArmTimer arm : machine.timers()) {
      timers.arm(arm.timer(), arm.deadline() - logTime);
    }
    sessions.restored(machine.sessions());
  }

  /**
   * Set when this node became leader; the applying thread then arms every timer the machine has
   * pending, once the leader's first {@link Command.ContinueGrants} is applied.
   */
  private volatile boolean rearmTimers;

  /** The machine the replicator applies to (applying thread only). */
  private @Nullable SemaphoreMachine machine;

  @Override
  public void becameLeader() {
    // A waiter's timeout or a lease's end that fell due while no node could commit was proposed
    // by whichever node's timer fired, refused there (not the leader, or the leader stepping
    // down) and dropped: the waiter then waited for ever (a fault campaign's client hung). The
    // new leader arms every pending timer again, so each that is due is proposed now.
    rearmTimers = true;
    sessions.heardAll(); // a full TTL from now for every session (docs/semantics.md#time)
    // grants the previous leader left pending are this leader's to continue (a no-op if none)
    continuing.set(true);
    propose.accept(new Command.ContinueGrants());
  }

  /** A command this edge proposed was dropped before reaching the replicator. */
  void proposalDropped(Command command) {
    if (command instanceof Command.ContinueGrants) {
      continuing.set(false);
    }
  }

  @Override
  public void lostLeadership(String leaderHint) {
    dropClients.accept(leaderHint);
  }

  long lastRevision() {
    return lastRevision;
  }

  /** Where the console's live streams learn that what they show changed (decision 0042). */
  final ConsoleFeed consoleFeed = new ConsoleFeed();

  @Override
  public void applied(
      Command command, @Nullable CommandOrigin origin, Outcome outcome, long logTime) {
    lastRevision = outcome.revision();
    if (!outcome.changed().isEmpty()) {
      consoleFeed.changed(outcome.changed());
      watches.applied(outcome.revision(), outcome.changed(), logTime);
    }
    metrics.applied(command, outcome, logTime);
    if (command instanceof Command.ContinueGrants) {
      continuing.set(false);
      SemaphoreMachine m = machine;
      if (rearmTimers && m != null) {
        rearmTimers = false;
        for (Effect.ArmTimer arm : m.timers()) {
          timers.arm(arm.timer(), arm.deadline() - logTime);
        }
      }
    }
    for (Effect effect : outcome.effects()) {
      if (effect instanceof Effect.Complete complete) {
        route(complete.reply(), null, logTime);
      } else if (effect instanceof Effect.ArmTimer arm) {
        timers.arm(arm.timer(), arm.deadline() - logTime);
      } else if (effect instanceof Effect.CancelTimer cancel) {
        timers.cancel(cancel.timer());
      } else if (effect instanceof Effect.SessionStarted started) {
        sessions.started(started.sessionId(), started.ttl(), started.owner());
      } else if (effect instanceof Effect.SessionEnded ended) {
        sessions.ended(ended.sessionId(), command instanceof Command.ExpireSession);
      } else if (effect instanceof Effect.LeaseOfAnother other
          && origin != null
          && origin.asker() != null) {
        auditLeaseOfAnother(other, origin.asker());
      } else if (effect instanceof Effect.GrantsPending && continuing.compareAndSet(false, true)) {
        continueAfterFlush = true;
      }
    }
    if (origin != null) {
      origin.applied(command, outcome, logTime, this);
    } else if (command instanceof Command.Request && outcome.reply() != null) {
      route(outcome.reply(), null, logTime); // a request the server made (a refused waiter)
    }
  }

  /**
   * Sends a request's reply where its session is attached now, else back where it came from; the
   * connection that asked sees the reply too, for its audit log, wherever it goes.
   */
  @Override
  public void route(Reply reply, @Nullable Connection asker, long logTime) {
    if (asker != null) {
      asker.answered(reply);
    }
    Connection connection = sessions.connection(reply.sessionId());
    if (connection == null) {
      connection = asker;
    }
    if (connection != null) {
      outbox.add(
          connection,
          ServerFrame.newBuilder().setResponse(WireResults.response(reply, logTime)).build());
    }
  }

  @Override
  public void send(Connection connection, ServerFrame frame) {
    outbox.add(connection, frame);
  }

  /** A read asked from inside the server (the admin endpoint): its answer completes the future. */
  record LocalRead(CompletableFuture<Reply> answer) implements ReadOrigin {
    @Override
    public void refused(String leaderHint) {
      answer.completeExceptionally(new NotLeader(leaderHint));
    }

    @Override
    public void answered(Query query, Reply reply, long logTime, ReadOrigin.Answers to) {
      answer.complete(reply);
    }
  }

  /**
   * A command proposed from inside the server (the console's actions): its reply completes the
   * future; a command that would wait fails it (the console proposes none), and so does a refusal,
   * with {@link NotLeader}.
   */
  record LocalCommand(CompletableFuture<Reply> answer) implements CommandOrigin {
    @Override
    public void refused(Command command, String leaderHint) {
      answer.completeExceptionally(new NotLeader(leaderHint));
    }

    @Override
    public void applied(Command command, Outcome outcome, long logTime, CommandOrigin.Answers to) {
      Reply reply = outcome.reply();
      if (reply != null) {
        answer.complete(reply);
      } else {
        answer.completeExceptionally(new IllegalStateException("the command waits"));
      }
    }

    @Override
    public @Nullable Connection asker() {
      return null;
    }
  }

  /**
   * This node does not lead: the command was not proposed, or the read not made (a follower answers
   * no read: clients are sent to the leader). {@code leaderHint}, the leader's client address, may
   * be empty.
   */
  static final class NotLeader extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    NotLeader(String leaderHint) {
      super(
          leaderHint.isEmpty()
              ? "this node is not the leader, and knows no leader now"
              : "this node is not the leader; the leader is " + leaderHint);
    }
  }

  @Override
  public void answered(Query query, @Nullable ReadOrigin origin, Reply reply, long logTime) {
    if (origin != null) {
      origin.answered(query, reply, logTime, this);
    }
  }

  @Override
  public void sweep(Revocation.Sweep sweep) {
    int watchesEnded = watches.endDenied(sweep.access());
    SemaphoreMachine m = machine;
    List<Command.RefuseWaiter> refusals =
        m == null ? List.of() : Revocation.refusals(sweep, m.waitingRequests());
    for (Command.RefuseWaiter refusal : refusals) {
      propose.accept(refusal);
    }
    sweep.done().complete(new Revocation.Ended(watchesEnded, refusals.size()));
  }

  @Override
  public void heartbeat(long logTime) {
    watches.heartbeat(logTime);
  }

  @Override
  public void startWatch(EdgeWatches.Start start, long logTime) {
    watches.start(start, logTime);
  }

  @Override
  public void catchUp(Connection connection, long logTime) {
    watches.catchUp(connection, logTime);
  }

  /** The watches of this node's connections (decision 0041). */
  private final EdgeWatches watches = new EdgeWatches(outbox);

  /** The machine the replicator starts with (before any command; {@link #restored} replaces it). */
  void attach(SemaphoreMachine machine) {
    this.machine = machine;
    watches.restored(machine);
  }

  @Override
  public void readAnswered(PendingRead read, Query query, Reply reply, long logTime) {
    if (read.connection().readOnPast(read.id(), query, reply)) {
      return; // still in flight: the page read next answers it
    }
    // the read's slot is freed when its answer is written to the connection, not now: freed
    // here, a client that never reads could have any number of answers queued in this batch
    // (a batch goes on while commands keep coming), counted by nothing
    outbox.addReadAnswer(
        read.connection(),
        ServerFrame.newBuilder()
            .setReadResponse(
                WireResults.readResponse(
                    read.id(), read.connection().visible(reply), logTime, sessions::sinceHeard))
            .build());
  }

  @Override
  public void batchEnded() {
    watches.batchEnded();
    if (continueAfterFlush) {
      continueAfterFlush = false;
      outbox.flush(() -> propose.accept(new Command.ContinueGrants()));
    } else {
      outbox.flush();
    }
    metrics.batchEnded();
  }

  /**
   * Writes to the audit log a renew or release of a lease another principal took (or its refusal),
   * for the connection that asked (decision 0047).
   */
  private static void auditLeaseOfAnother(Effect.LeaseOfAnother other, Connection asker) {
    Principal who = asker.principal();
    Audit.record(
        other.action()
            + " taken by "
            + (other.taker().isEmpty() ? "nobody in particular" : other.taker()),
        who == null ? Principal.ANONYMOUS : who,
        asker.address(),
        other.refused() == null ? "ok" : "PERMISSION_DENIED: " + other.refused());
  }

  /** Ends every watch of a connection that closed. Any thread. */
  void connectionClosed(Connection connection) {
    watches.connectionClosed(connection);
  }

  /** Ends the watch {@code id} of {@code connection}. Any thread. */
  void unwatch(Connection connection, long id) {
    watches.unwatch(connection, id);
  }

  /** How many watches are running, for the metrics. */
  int watchCount() {
    return watches.count();
  }

  /** The command to propose when a machine timer fires. */
  static Command expiry(TimerKey key) {
    if (key instanceof TimerKey.WaiterTimeout w) {
      return new Command.ExpireWaiter(w.sessionId(), w.requestId());
    }
    return new Command.ExpireLease(((TimerKey.LeaseEnd) key).permitId());
  }

  @Override
  public void failed(String what, Throwable cause) {
    failed.accept(what);
  }
}
