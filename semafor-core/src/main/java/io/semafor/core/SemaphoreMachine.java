package io.semafor.core;

import io.semafor.ErrorCode;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The semaphore state machine: every rule of docs/semantics.md as pure, deterministic logic.
 *
 * <p>{@link #apply} takes a command with its revision and the log time at which it applies, and
 * returns the reply and the effects for the edge to carry out. It reads no clock, starts no thread
 * and does no I/O, so replicas that apply the same commands in the same order reach the same state,
 * byte for byte ({@link #writeSnapshot}).
 *
 * <p><b>Not thread-safe.</b> One thread applies commands (the replicator's apply loop); queries
 * must run on that thread too, or be otherwise ordered with {@code apply}.
 *
 * <p>Failures are values ({@link Result.Failure}) and a failed command changes nothing. The only
 * exceptions are for misuse by the caller: a revision that does not increase.
 */
public final class SemaphoreMachine {
  private final Engine engine;
  private final GrantOrder order;
  private final SemaphoreCommands semaphoreCommands;
  private final WaitingCommands waiting;
  private final LeaseCommands leases;
  private final WaitManyCommands waitMany;
  private final SessionCommands sessions;
  private final Queries queries;

  /** A machine with the default limits (docs/semantics.md#limits) and no state. */
  public SemaphoreMachine() {
    this(Limits.DEFAULT);
  }

  /** A machine with these limits and no state; every replica of a group must use the same. */
  public SemaphoreMachine(Limits limits) {
    this(new Engine(limits, new SemaphoreIndex()));
  }

  SemaphoreMachine(Engine engine) {
    this.engine = engine;
    Grants grants = new Grants(engine);
    this.order = new GrantOrder(engine, grants);
    this.semaphoreCommands = new SemaphoreCommands(engine);
    this.waiting = new WaitingCommands(engine, grants);
    this.leases = new LeaseCommands(engine);
    this.waitMany = new WaitManyCommands(engine, grants);
    this.sessions = new SessionCommands(engine, leases, waitMany);
    this.queries = new Queries(engine);
  }

  /**
   * Applies one command.
   *
   * @param revision the command's revision: strictly greater than every earlier one
   * @param now the log time at which it applies, in nanoseconds; a time earlier than the last one
   *     is taken as the last one, so log time never runs backwards
   * @throws IllegalArgumentException if {@code revision} does not increase
   */
  public Outcome apply(long revision, long now, Command command) {
    if (revision <= engine.revision) {
      throw new IllegalArgumentException(
          "revision " + revision + " is not after the last applied " + engine.revision);
    }
    engine.revision = revision;
    engine.now = Math.max(engine.now, now);
    if (order.pending() && order.mustCompleteFirst(command)) {
      order.settle(Integer.MAX_VALUE);
    }
    Reply reply = dispatch(command);
    if (order.settle(engine.limits.grantsPerCommand())) {
      // reporting WaitMany entries withdraws their partial requests, which serves nobody new;
      // while grants are pending, a report waits for them, as it would in a one-step hand-out
      waitMany.answerReadyLists();
      order.clearTouched();
    } else {
      order.keepOnlyServable();
      engine.emit(new Effect.GrantsPending());
    }
    return new Outcome(revision, reply, engine.takeEffects(), engine.takeChanged());
  }

  private @Nullable Reply dispatch(Command command) {
    if (command instanceof Command.Request request) {
      return request(request);
    }
    Result result;
    if (command instanceof Command.Acknowledge ack) {
      Session session = engine.session(ack.sessionId());
      if (session != null) {
        session.lastSeen = engine.now;
        sessions.acknowledge(session, ack.acks());
      }
      return null;
    } else if (command instanceof Command.OpenSession open) {
      result = sessions.open(open);
    } else if (command instanceof Command.ExpireWaiter expire) {
      result = waiting.expire(expire);
    } else if (command instanceof Command.RefuseWaiter refuse) {
      result = waiting.refuse(refuse);
    } else if (command instanceof Command.ExpireLease expire) {
      result = leases.expire(expire);
    } else if (command instanceof Command.ExpireSession expire) {
      result = sessions.expire(expire);
    } else if (command instanceof Command.ContinueGrants) {
      return null; // apply serves the next slice
    } else {
      throw new IllegalStateException("unknown command " + command);
    }
    return new Reply(0, 0, engine.revision, result);
  }

  private @Nullable Reply request(Command.Request request) {
    Session session = engine.session(request.sessionId());
    long id = request.requestId();
    if (session == null) {
      return new Reply(
          request.sessionId(),
          id,
          engine.revision,
          new Result.Failure(
              ErrorCode.SESSION_EXPIRED,
              "sessionId: session " + request.sessionId() + " does not exist or has ended"));
    }
    session.lastSeen = engine.now;
    sessions.acknowledge(session, request.acks());
    if (id <= session.lastRequestId) {
      Object known = session.requests.get(id);
      Reply kept = Delivery.replyOf(known);
      if (kept != null) {
        return kept;
      }
      if (known instanceof Waiter) {
        return null;
      }
      return new Reply(
          session.id,
          id,
          engine.revision,
          Check.invalid(
              "requestId",
              id <= 0
                  ? "must be positive, was " + id
                  : id + " is not after " + session.lastRequestId + " and has no reply kept"));
    }
    int maxUnacked = engine.limits.maxUnackedReplies();
    if (session.unacked >= maxUnacked) {
      return new Reply(
          session.id,
          id,
          engine.revision,
          Check.exhausted(
              "maxUnackedReplies",
              maxUnacked,
              "acknowledge received replies before sending more requests"));
    }
    session.lastRequestId = id;
    return operation(session, id, request.operation());
  }

  private @Nullable Reply operation(Session session, long id, Operation op) {
    if (op instanceof Operation.Acquire o) {
      return waiting.acquire(session, id, o);
    } else if (op instanceof Operation.Decrement o) {
      return waiting.decrement(session, id, o);
    } else if (op instanceof Operation.Increment o) {
      return semaphoreCommands.increment(session, id, o);
    } else if (op instanceof Operation.Release o) {
      return sessions.release(session, id, o);
    } else if (op instanceof Operation.AcquireLease o) {
      return waiting.acquireLease(session, id, o);
    } else if (op instanceof Operation.ReleaseLease o) {
      return leases.release(session, id, o);
    } else if (op instanceof Operation.RenewLease o) {
      return leases.renew(session, id, o);
    } else if (op instanceof Operation.Semop o) {
      return waiting.semop(session, id, o);
    } else if (op instanceof Operation.AwaitZero o) {
      return waiting.awaitZero(session, id, o);
    } else if (op instanceof Operation.ReleaseSlot o) {
      return sessions.releaseSlot(session, id, o);
    } else if (op instanceof Operation.SetValue o) {
      return semaphoreCommands.set(session, id, o);
    } else if (op instanceof Operation.Create o) {
      return semaphoreCommands.create(session, id, o);
    } else if (op instanceof Operation.Delete o) {
      return semaphoreCommands.delete(session, id, o);
    } else if (op instanceof Operation.AddToWaitMany o) {
      return waitMany.add(session, id, o);
    } else if (op instanceof Operation.RemoveFromWaitMany o) {
      return waitMany.remove(session, id, o);
    } else if (op instanceof Operation.WaitMany o) {
      return waitMany.waitMany(session, id, o);
    } else if (op instanceof Operation.Cancel o) {
      return waiting.cancel(session, id, o);
    } else if (op instanceof Operation.CloseSession) {
      return sessions.close(session, id);
    } else if (op instanceof Operation.EndSession o) {
      return sessions.endOther(session, id, o);
    }
    throw new IllegalStateException("unknown operation " + op);
  }

  private static final Result PASSED = new Result.Passed();

  /** Answers a query from the current state, with the revision it reflects. */
  public Reply query(Query query) {
    Result result;
    if (query instanceof Query.Get get) {
      result = queries.get(get);
    } else if (query instanceof Query.Inspect inspect) {
      result = queries.inspect(inspect);
    } else if (query instanceof Query.ListNames list) {
      result = queries.list(list);
    } else if (query instanceof Query.ListSessions list) {
      result = queries.sessions(list);
    } else if (query instanceof Query.Barrier) {
      result = PASSED;
    } else {
      throw new IllegalStateException("unknown query " + query);
    }
    return new Reply(0, 0, engine.revision, result);
  }

  /** How many waiters grant order has evaluated, ever: its work, for tests and metrics. */
  long waiterEvaluations() {
    return order.evaluations();
  }

  /**
   * How many queued waiters inspection pages have walked past to find where they resume, ever: the
   * work of a page beyond the entries it shows, for tests.
   */
  long inspectionWalk() {
    return queries.walked;
  }

  /** The limits this machine enforces (every replica of a group uses the same). */
  public Limits limits() {
    return engine.limits;
  }

  /** The revision of the last command applied; 0 before any. */
  public long revision() {
    return engine.revision;
  }

  /** The log time of the last command applied, or of the snapshot it was restored from. */
  public long now() {
    return engine.now;
  }

  /** How many semaphores exist. */
  public int semaphoreCount() {
    return engine.semaphores.size();
  }

  /** How many sessions are open. */
  public int sessionCount() {
    return engine.sessions.size();
  }

  /**
   * Every live session with its TTL, for an edge that starts tracking liveness after a restore or a
   * leader change (each gets a full TTL from then, docs/semantics.md#time).
   */
  public List<Effect.SessionStarted> sessions() {
    List<Effect.SessionStarted> out = new ArrayList<>(engine.sessions.size());
    for (long id : engine.sessions.sortedKeys()) {
      Session s = engine.sessions.get(id);
      if (s != null) {
        out.add(new Effect.SessionStarted(s.id, s.ttl, s.owner));
      }
    }
    return out;
  }

  /**
   * Every timer that must be armed now: waiter timeouts and lease ends, with their log-time
   * deadlines, for an edge re-arming after a restore or a leader change.
   */
  public List<Effect.ArmTimer> timers() {
    List<Effect.ArmTimer> out = new ArrayList<>();
    engine.sessions.forEachValue(
        s ->
            s.requests.forEachValue(
                request -> {
                  if (request instanceof Waiter w && w.deadline != Waiter.NO_DEADLINE) {
                    out.add(
                        new Effect.ArmTimer(
                            new TimerKey.WaiterTimeout(s.id, w.requestId), w.deadline));
                  }
                }));
    for (Lease lease : engine.leases.values()) {
      out.add(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.permitId), lease.expiresAt));
    }
    out.sort(
        Comparator.comparingLong(Effect.ArmTimer::deadline)
            .thenComparing(t -> t.timer().toString()));
    return out;
  }

  /**
   * Every waiting client request, with the principal of its session and the names it would take
   * from, give to or wait to be zero, for an edge that checks them again when permissions change
   * (decision 0047). In session and request order.
   */
  public List<WaitingRequest> waitingRequests() {
    List<WaitingRequest> out = new ArrayList<>();
    for (long id : engine.sessions.sortedKeys()) {
      Session s = engine.sessions.get(id);
      if (s == null || s.waiting == 0) {
        continue;
      }
      for (long requestId : s.requests.sortedKeys()) {
        if (s.requests.get(requestId) instanceof Waiter w) {
          out.add(WaitingRequest.of(s.owner.principal(), w));
        }
      }
    }
    return out;
  }

  /**
   * Writes the whole state as of the last applied command; {@link #readSnapshot} restores it. What
   * a Raft log's own snapshots hold: the entries after it carry on the log's time.
   */
  public void writeSnapshot(DataOutput out) throws IOException {
    writeSnapshot(out, engine.now);
  }

  /**
   * Writes the whole state as of log time {@code now}, the time the snapshot is taken at (a backup,
   * {@code semafor snapshot save}): the machine restored from it starts at that time, so every
   * lease end and waiter timeout has, counted from the restore, exactly the time it had left at
   * {@code now}. Without it, the time between the last command and the save would be added to each
   * (a restore continues log time from the snapshot's). A time earlier than the last applied
   * command's is taken as that; the machine itself is not changed.
   */
  public void writeSnapshot(DataOutput out, long now) throws IOException {
    new SnapshotWriter(engine, out, now).write();
  }

  /**
   * Restores a machine from a snapshot written by {@link #writeSnapshot}.
   *
   * @throws IOException if the input ends early, is not a snapshot of a known version, or is
   *     corrupt: its parts do not fit together (a state the machine could not have written)
   */
  public static SemaphoreMachine readSnapshot(Limits limits, DataInput in) throws IOException {
    try {
      SemaphoreMachine machine = new SemaphoreMachine(new SnapshotReader(limits, in).read());
      machine.order.resumePending();
      machine.waitMany.resumeReadyLists();
      // rebuilding marks semaphores changed; a restored state is not a change of the next command
      machine.engine.takeChanged();
      return machine;
    } catch (RuntimeException e) {
      // the reader checks the format; a state that breaks the machine's own assumptions while it
      // is rebuilt (found by fuzzing, decision 0030) is a corrupt snapshot too, not a crash
      throw new IOException("corrupt snapshot: " + e, e);
    }
  }
}
