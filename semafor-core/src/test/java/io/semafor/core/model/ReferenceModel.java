package io.semafor.core.model;

import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemopOp;
import io.semafor.core.TimerKey;
import io.semafor.core.model.ModelState.Done;
import io.semafor.core.model.ModelState.Entry;
import io.semafor.core.model.ModelState.Hold;
import io.semafor.core.model.ModelState.Kind;
import io.semafor.core.model.ModelState.Lease;
import io.semafor.core.model.ModelState.Op;
import io.semafor.core.model.ModelState.Sem;
import io.semafor.core.model.ModelState.Ses;
import io.semafor.core.model.ModelState.W;
import io.semafor.core.model.ModelState.WList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A deliberately naive implementation of docs/semantics.md, written apart from the engine and
 * sharing only its public types. It keeps one global list of waiters and, after every change, scans
 * all of them for the lowest-sequence one that can be served; every amount it needs (what is owned,
 * leased, in transit, which slots are free) it recomputes by scanning. Slow on purpose: its only
 * job is to be obviously right, so that property tests can hold the engine to it.
 *
 * <p>Failure messages are not modelled; tests compare failures by code.
 */
public final class ReferenceModel {
  private final Limits limits;
  private final ModelState st = new ModelState();
  private List<Effect> effects = new ArrayList<>();

  public ReferenceModel(Limits limits) {
    this.limits = limits;
  }

  public Outcome apply(long revision, long now, Command command) {
    st.revision = revision;
    st.now = Math.max(st.now, now);
    effects = new ArrayList<>();
    Reply reply = dispatch(command);
    settle();
    answerWaitManyCalls();
    return new Outcome(revision, reply, effects);
  }

  // ---------------------------------------------------------------- commands

  private @Nullable Reply dispatch(Command command) {
    if (command instanceof Command.Request r) {
      return request(r);
    }
    if (command instanceof Command.Acknowledge a) {
      Ses ses = st.sessions.get(a.sessionId());
      if (ses != null) {
        ses.lastSeen = st.now;
        acknowledge(ses, a.acks());
      }
      return null;
    }
    Result result;
    if (command instanceof Command.OpenSession o) {
      if (o.ttl() <= 0) {
        result = fail(ErrorCode.INVALID_ARGUMENT);
      } else if (st.sessions.size() >= limits.maxSessions()) {
        result = fail(ErrorCode.RESOURCE_EXHAUSTED);
      } else {
        long id = ++st.sessionIds;
        st.sessions.put(id, new Ses(id, o.ttl(), st.now));
        effects.add(new Effect.SessionStarted(id, o.ttl()));
        result = new Result.SessionOpened(id, o.ttl());
      }
    } else if (command instanceof Command.ExpireSession e) {
      Ses ses = st.sessions.get(e.sessionId());
      long end = ses == null ? 0 : ses.lastSeen + ses.ttl;
      if (ses != null && end < ses.lastSeen) {
        end = Long.MAX_VALUE;
      }
      boolean applies = false;
      if (ses != null && st.now >= end) {
        endSession(ses);
        applies = true;
      }
      result = new Result.Expiry(applies);
    } else if (command instanceof Command.ExpireWaiter e) {
      Ses ses = st.sessions.get(e.sessionId());
      Object target = ses == null ? null : ses.requests.get(e.requestId());
      boolean applies = false;
      if (target instanceof W w) {
        if (st.now < w.deadline) {
          effects.add(
              new Effect.ArmTimer(
                  new TimerKey.WaiterTimeout(e.sessionId(), e.requestId()), w.deadline));
        } else {
          complete(w, notDone(w));
          applies = true;
        }
      }
      result = new Result.Expiry(applies);
    } else if (command instanceof Command.ExpireLease e) {
      Lease lease = st.leases.get(e.permitId());
      boolean applies = false;
      if (lease != null) {
        if (st.now < lease.expiresAt) {
          effects.add(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.id), lease.expiresAt));
        } else {
          endLease(lease);
          applies = true;
        }
      }
      result = new Result.Expiry(applies);
    } else if (command instanceof Command.ContinueGrants) {
      return null; // the model serves every waiter in the command that made it servable
    } else {
      throw new IllegalStateException("unknown command " + command);
    }
    return new Reply(0, 0, st.revision, result);
  }

  private @Nullable Reply request(Command.Request r) {
    Ses ses = st.sessions.get(r.sessionId());
    if (ses == null) {
      return new Reply(r.sessionId(), r.requestId(), st.revision, fail(ErrorCode.SESSION_EXPIRED));
    }
    ses.lastSeen = st.now;
    acknowledge(ses, r.acks());
    long id = r.requestId();
    if (id <= ses.lastRequestId) {
      Object known = ses.requests.get(id);
      if (known instanceof Done d) {
        return d.reply;
      }
      if (known instanceof W) {
        return null;
      }
      return new Reply(ses.id, id, st.revision, fail(ErrorCode.INVALID_ARGUMENT));
    }
    if (ses.unacked >= limits.maxUnackedReplies()) {
      return new Reply(ses.id, id, st.revision, fail(ErrorCode.RESOURCE_EXHAUSTED));
    }
    ses.lastRequestId = id;
    Operation op = r.operation();
    if (op instanceof Operation.CloseSession) {
      endSession(ses);
      return new Reply(ses.id, id, st.revision, new Result.SessionClosed());
    }
    Object answer = operation(ses, id, op);
    if (answer == null || answer instanceof Reply) {
      return (Reply) answer;
    }
    return record(ses, id, (Result) answer, List.of(), List.of(), null);
  }

  /**
   * The answer to an operation: a result to record, a reply already recorded with what it hands
   * over, or null if the request waits.
   */
  private @Nullable Object operation(Ses ses, long id, Operation op) {
    if (op instanceof Operation.Create o) {
      return create(o);
    } else if (op instanceof Operation.Delete o) {
      return delete(o.name());
    } else if (op instanceof Operation.SetValue o) {
      if (o.value() < 0) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      Sem s = st.sems.get(o.name());
      if (s == null) {
        return missing(o.name());
      }
      if (o.value() > s.ceiling() - outstanding(s)) {
        return fail(ErrorCode.OVERFLOW);
      }
      long previous = s.value;
      s.value = o.value();
      return new Result.ValueSet(previous);
    } else if (op instanceof Operation.Increment o) {
      if (o.amount() <= 0) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      Sem s = st.sems.get(o.name());
      if (s == null) {
        return missing(o.name());
      }
      if (o.amount() > s.ceiling() - outstanding(s) - s.value) {
        return fail(ErrorCode.OVERFLOW);
      }
      s.value += o.amount();
      return new Result.Incremented(s.value);
    } else if (op instanceof Operation.Decrement o) {
      return waitable(ses, id, Kind.DECREMENT, o.name(), o.amount(), o.timeout(), o.owned(), 0);
    } else if (op instanceof Operation.Acquire o) {
      return waitable(ses, id, Kind.ACQUIRE, o.name(), o.amount(), o.timeout(), o.owned(), 0);
    } else if (op instanceof Operation.AcquireLease o) {
      if (o.amount() > 0 && o.leaseTtl() <= 0) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      return waitable(ses, id, Kind.LEASE, o.name(), o.amount(), o.timeout(), false, o.leaseTtl());
    } else if (op instanceof Operation.AwaitZero o) {
      return waitable(ses, id, Kind.ZERO, o.name(), 0, o.timeout(), false, 0);
    } else if (op instanceof Operation.Semop o) {
      return semop(ses, id, o);
    } else if (op instanceof Operation.Release o) {
      return release(ses, o);
    } else if (op instanceof Operation.ReleaseSlot o) {
      return releaseSlot(ses, o);
    } else if (op instanceof Operation.RenewLease o) {
      if (o.ttl() <= 0) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      Lease lease = st.leases.get(o.permitId());
      if (lease == null) {
        return fail(ErrorCode.NOT_FOUND);
      }
      lease.expiresAt = deadline(o.ttl());
      effects.add(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.id), lease.expiresAt));
      return new Result.LeaseRenewed(lease.expiresAt);
    } else if (op instanceof Operation.ReleaseLease o) {
      Lease lease = st.leases.get(o.permitId());
      if (lease != null) {
        endLease(lease);
      }
      return new Result.LeaseReleased(lease != null);
    } else if (op instanceof Operation.AddToWaitMany o) {
      return addToWaitMany(ses, o);
    } else if (op instanceof Operation.RemoveFromWaitMany o) {
      return removeFromWaitMany(ses, o);
    } else if (op instanceof Operation.WaitMany o) {
      return waitMany(ses, id, o);
    } else if (op instanceof Operation.Cancel o) {
      Object target = ses.requests.get(o.requestId());
      if (target instanceof W w) {
        complete(w, notDone(w));
      }
      return new Result.Cancelled(target instanceof W);
    }
    throw new IllegalStateException("unknown operation " + op);
  }

  private Result create(Operation.Create o) {
    if (!validName(o.name())
        || o.initial() < 0
        || o.options().capacity() < 0
        || (o.options().capacity() > 0 && o.initial() > o.options().capacity())
        || o.options().maxPerSession() < 0) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    Sem existing = st.sems.get(o.name());
    if (existing != null) {
      return new Result.Created(false, options(existing), existing.value);
    }
    if (st.sems.size() >= limits.maxSemaphores()) {
      return fail(ErrorCode.RESOURCE_EXHAUSTED);
    }
    long capacity = o.options().capacity();
    boolean slotted = capacity > 0 && capacity <= limits.maxSlottedCapacity();
    st.sems.put(
        o.name(),
        new Sem(
            o.name(),
            o.initial(),
            capacity,
            o.options().policy(),
            o.options().maxPerSession(),
            slotted));
    return new Result.Created(true, o.options(), o.initial());
  }

  private Result delete(Name name) {
    Sem s = st.sems.get(name);
    if (s == null) {
      return missing(name);
    }
    st.sems.remove(name);
    s.deleted = true;
    for (W w : new ArrayList<>(st.waiters)) {
      if (w.kind == Kind.CALL || !w.involves(s)) {
        continue;
      }
      if (w.kind == Kind.ENTRY) {
        st.waiters.remove(w);
        entryOf(w).pending = null;
      } else {
        complete(w, fail(ErrorCode.DELETED));
      }
    }
    for (Ses ses : st.sessions.values()) {
      ses.holds.remove(s);
      for (WList list : ses.lists.values()) {
        for (Entry e : list.entries) {
          if (e.sem == s) {
            e.deleted = true;
            e.granted = 0;
          }
        }
      }
    }
    st.leases.values().removeIf(l -> l.sem == s);
    return new Result.Deleted();
  }

  private @Nullable Object waitable(
      Ses ses,
      long id,
      Kind kind,
      Name name,
      long amount,
      long timeout,
      boolean owned,
      long leaseTtl) {
    if ((kind != Kind.ZERO && amount <= 0) || timeout < -1) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    Sem s = st.sems.get(name);
    if (s == null) {
      return missing(name);
    }
    if ((kind == Kind.ACQUIRE || kind == Kind.LEASE) && s.capacity > 0 && amount > s.capacity) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    if (owned) {
      Result.Failure f = perSession(ses, s, amount);
      if (f != null) {
        return f;
      }
    }
    boolean servable =
        kind == Kind.ZERO
            ? s.value == 0
            : !heldBack(s, Long.MAX_VALUE)
                && (kind == Kind.DECREMENT ? s.value > 0 : s.value >= amount);
    if (servable) {
      long seq = ++st.seq;
      return switch (kind) {
        case ZERO -> new Result.ZeroReached(true, seq);
        case LEASE -> lease(ses, id, seq, s, amount, leaseTtl);
        case DECREMENT -> take(ses, id, seq, s, Math.min(s.value, amount), owned);
        default -> take(ses, id, seq, s, amount, owned);
      };
    }
    if (timeout == 0) {
      return notDone(kind, ++st.seq);
    }
    if (waitingCount(ses) >= limits.maxWaitersPerSession()) {
      return fail(ErrorCode.RESOURCE_EXHAUSTED);
    }
    enqueue(W.single(kind, ses, id, ++st.seq, deadline(timeout), s, amount, owned, leaseTtl));
    return null;
  }

  private @Nullable Object semop(Ses ses, long id, Operation.Semop o) {
    if (o.ops().isEmpty()) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    if (o.ops().size() > limits.maxSemopOps()) {
      return fail(ErrorCode.RESOURCE_EXHAUSTED);
    }
    if (o.timeout() < -1) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    List<Op> ops = new ArrayList<>();
    for (SemopOp op : o.ops()) {
      if (op.delta() == Long.MIN_VALUE) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      Sem s = st.sems.get(op.name());
      if (s == null) {
        return missing(op.name());
      }
      if (op.delta() < 0 && s.capacity > 0 && -op.delta() > s.capacity) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      ops.add(new Op(s, op.delta(), op.noWait(), op.owned()));
    }
    for (Sem s : distinct(ops)) {
      long ownedTakes = 0;
      for (Op op : ops) {
        if (op.sem() == s && op.delta() < 0 && op.owned()) {
          ownedTakes -= op.delta();
        }
      }
      Result.Failure f = perSession(ses, s, ownedTakes);
      if (f != null) {
        return f;
      }
    }
    Object verdict = evaluate(ses, ops, Long.MAX_VALUE);
    if (verdict instanceof Result.Failure failure) {
      return failure;
    }
    if (verdict == null) {
      return applySemop(ses, id, ++st.seq, ops);
    }
    if (o.timeout() == 0) {
      return new Result.SemopDone(false, 0, ++st.seq, List.of());
    }
    if (waitingCount(ses) >= limits.maxWaitersPerSession()) {
      return fail(ErrorCode.RESOURCE_EXHAUSTED);
    }
    enqueue(W.semop(ses, id, ++st.seq, deadline(o.timeout()), ops));
    return null;
  }

  private Result release(Ses ses, Operation.Release o) {
    if (o.amount() <= 0) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    Sem s = st.sems.get(o.name());
    if (s == null) {
      return missing(o.name());
    }
    Hold hold = ses.holds.get(s);
    if (hold == null || o.amount() > Math.max(hold.adj, 0)) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    adjust(ses, s, -o.amount());
    s.value += o.amount();
    return new Result.Released(o.amount());
  }

  private Result releaseSlot(Ses ses, Operation.ReleaseSlot o) {
    if (o.slot() <= 0) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    Sem s = st.sems.get(o.name());
    if (s == null) {
      return missing(o.name());
    }
    Hold hold = ses.holds.get(s);
    if (hold == null || !s.slotted || !hold.slots.contains(o.slot())) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    hold.slots.remove(Long.valueOf(o.slot()));
    hold.adj -= 1;
    if (hold.adj == 0) {
      ses.holds.remove(s);
    }
    s.value += 1;
    return new Result.Released(1);
  }

  // ---------------------------------------------------------------- WaitMany

  private Result addToWaitMany(Ses ses, Operation.AddToWaitMany o) {
    if (o.amount() <= 0) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    Sem s = st.sems.get(o.name());
    if (s == null) {
      return missing(o.name());
    }
    WList list = ses.lists.get(o.listId());
    Entry entry = null;
    if (list != null) {
      for (Entry e : list.entries) {
        if (e.sem == s) {
          entry = e;
        }
      }
    }
    if (entry == null) {
      if (list != null && list.entries.size() >= limits.maxWaitManyEntries()) {
        return fail(ErrorCode.RESOURCE_EXHAUSTED);
      }
      if (waitingCount(ses) >= limits.maxWaitersPerSession()) {
        return fail(ErrorCode.RESOURCE_EXHAUSTED);
      }
      if (list == null) {
        list = new WList(o.listId());
        ses.lists.put(o.listId(), list);
      }
      entry = new Entry(s, list.nextOrdinal++);
      list.entries.add(entry);
      requestForEntry(ses, entry, o.amount());
    } else if (entry.pending != null) {
      if (entry.pending.amount > Long.MAX_VALUE - o.amount()) {
        return fail(ErrorCode.INVALID_ARGUMENT);
      }
      entry.pending.amount += o.amount();
    } else {
      requestForEntry(ses, entry, o.amount());
    }
    W pending = entry.pending;
    return new Result.WaitManyAdded(entry.granted, pending == null ? 0 : pending.amount);
  }

  private void requestForEntry(Ses ses, Entry entry, long amount) {
    long seq = ++st.seq;
    Sem s = entry.sem;
    if (s.value > 0 && !heldBack(s, seq)) {
      grantEntry(entry, Math.min(s.value, amount));
    } else {
      W w = W.entry(ses, seq, s, amount, entry);
      st.waiters.add(w);
      entry.pending = w;
    }
  }

  private Result removeFromWaitMany(Ses ses, Operation.RemoveFromWaitMany o) {
    WList list = ses.lists.get(o.listId());
    if (list == null) {
      return new Result.WaitManyRemoved(false, 0);
    }
    Sem live = st.sems.get(o.name());
    Entry entry = null;
    for (Entry e : list.entries) {
      if (live != null && e.sem == live) {
        entry = e;
      }
    }
    if (entry == null) {
      for (Entry e : list.entries) {
        if (entry == null && e.deleted && e.sem.name.equals(o.name())) {
          entry = e;
        }
      }
    }
    if (entry == null) {
      return new Result.WaitManyRemoved(false, 0);
    }
    long returned = entry.deleted ? 0 : entry.granted;
    dropEntry(list, entry, true);
    W call = list.call;
    if (list.entries.isEmpty() && call != null) {
      complete(call, new Result.WaitManyReported(List.of()));
    }
    if (list.entries.isEmpty() && list.call == null) {
      ses.lists.remove(list.id);
    }
    return new Result.WaitManyRemoved(true, returned);
  }

  private @Nullable Object waitMany(Ses ses, long id, Operation.WaitMany o) {
    if (o.timeout() < -1) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    WList list = ses.lists.get(o.listId());
    if (list == null || list.entries.isEmpty()) {
      return new Result.WaitManyReported(List.of());
    }
    if (list.call != null) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    if (list.entries.stream().anyMatch(e -> e.granted > 0 || e.deleted)) {
      return report(ses, id, list);
    }
    if (o.timeout() == 0) {
      return new Result.WaitManyReported(List.of());
    }
    if (waitingCount(ses) >= limits.maxWaitersPerSession()) {
      return fail(ErrorCode.RESOURCE_EXHAUSTED);
    }
    W call = W.call(ses, id, ++st.seq, deadline(o.timeout()), list);
    list.call = call;
    enqueue(call);
    return null;
  }

  private void answerWaitManyCalls() {
    List<W> calls = new ArrayList<>();
    for (Ses ses : st.sessions.values()) {
      for (WList list : ses.lists.values()) {
        W call = list.call;
        if (call != null && list.entries.stream().anyMatch(e -> e.granted > 0 || e.deleted)) {
          calls.add(call);
        }
      }
    }
    calls.sort(Comparator.comparingLong(c -> c.seq));
    for (W call : calls) {
      WList list = listOf(call);
      Reply reply = report(call.ses, call.requestId, list);
      st.waiters.remove(call);
      list.call = null;
      cancelTimer(call);
      effects.add(new Effect.Complete(reply));
      if (list.entries.isEmpty()) {
        call.ses.lists.remove(list.id);
      }
    }
  }

  private Reply report(Ses ses, long id, WList list) {
    long after = list.lastReported;
    List<Entry> ready = new ArrayList<>();
    for (Entry e : list.entries) {
      if (e.granted > 0 || e.deleted) {
        ready.add(e);
      }
    }
    ready.sort(
        Comparator.comparingLong((Entry e) -> e.ordinal > after ? 0 : 1)
            .thenComparingLong(e -> e.ordinal));
    List<Result.Report> reports = new ArrayList<>();
    List<Sem> sems = new ArrayList<>();
    List<Long> amounts = new ArrayList<>();
    for (Entry e : ready) {
      long granted = e.deleted ? 0 : e.granted;
      reports.add(new Result.Report(e.sem.name, granted, e.token));
      if (granted > 0) {
        sems.add(e.sem);
        amounts.add(granted);
      }
      dropEntry(list, e, false);
      list.lastReported = e.ordinal;
    }
    if (list.entries.isEmpty() && list.call == null) {
      ses.lists.remove(list.id);
    }
    return record(ses, id, new Result.WaitManyReported(reports), sems, amounts, null);
  }

  private void dropEntry(WList list, Entry entry, boolean giveBack) {
    W pending = entry.pending;
    if (pending != null) {
      st.waiters.remove(pending);
      entry.pending = null;
    }
    if (giveBack && !entry.deleted && entry.granted > 0) {
      entry.sem.value += entry.granted;
    }
    list.entries.remove(entry);
  }

  private void grantEntry(Entry entry, long amount) {
    entry.sem.value -= amount;
    entry.granted += amount;
    entry.token = ++st.token;
  }

  // ---------------------------------------------------------------- sessions and leases

  private void acknowledge(Ses ses, List<Long> acks) {
    for (long id : acks) {
      if (ses.requests.get(id) instanceof Done d) {
        ses.requests.remove(id);
        ses.unacked--;
        Lease lease = d.lease;
        if (lease != null && lease.undeliveredTo == ses) {
          lease.undeliveredTo = null;
        }
      }
    }
  }

  private void endSession(Ses ses) {
    List<W> mine = new ArrayList<>();
    for (W w : st.waiters) {
      if (w.ses == ses && w.kind != Kind.ENTRY) {
        mine.add(w);
      }
    }
    for (W w : mine) {
      complete(w, fail(ErrorCode.SESSION_EXPIRED));
    }
    for (WList list : new ArrayList<>(ses.lists.values())) {
      for (Entry e : new ArrayList<>(list.entries)) {
        dropEntry(list, e, true);
      }
    }
    ses.lists.clear();
    for (Object request : ses.requests.values()) {
      if (request instanceof Done d) {
        for (int i = 0; i < d.sems.size(); i++) {
          if (!d.sems.get(i).deleted) {
            d.sems.get(i).value += d.amounts.get(i);
          }
        }
        Lease lease = d.lease;
        if (lease != null && lease.undeliveredTo == ses && st.leases.get(lease.id) == lease) {
          endLease(lease);
        }
      }
    }
    for (Map.Entry<Sem, Hold> e : ses.holds.entrySet()) {
      Sem s = e.getKey();
      long adj = e.getValue().adj;
      s.value = adj > 0 ? s.value + adj : Math.max(0, s.value + adj);
    }
    ses.holds.clear();
    ses.requests.clear();
    st.sessions.remove(ses.id);
    effects.add(new Effect.SessionEnded(ses.id));
  }

  private void endLease(Lease lease) {
    st.leases.remove(lease.id);
    lease.sem.value += lease.amount;
    lease.undeliveredTo = null;
    effects.add(new Effect.CancelTimer(new TimerKey.LeaseEnd(lease.id)));
  }

  // ---------------------------------------------------------------- granting

  /**
   * Serves waiters while any can be served, lowest arrival sequence first
   * (docs/semantics.md#grant-order).
   */
  private void settle() {
    releaseZeros();
    for (int guard = 0; guard < 1_000_000; guard++) {
      W best = null;
      for (W w : st.waiters) {
        if (w.kind != Kind.ZERO && w.kind != Kind.CALL && verdict(w) != BLOCKED) {
          best = w;
          break;
        }
      }
      if (best == null) {
        return;
      }
      serve(best);
      releaseZeros();
    }
    throw new IllegalStateException("settle did not end");
  }

  private void releaseZeros() {
    for (W w : new ArrayList<>(st.waiters)) {
      if (w.kind == Kind.ZERO && semOf(w).value == 0) {
        complete(w, new Result.ZeroReached(true, w.seq));
      }
    }
  }

  /** The verdict of a waiter that must keep waiting. */
  private static final Object BLOCKED = new Object();

  /** null: servable; {@link #BLOCKED}: must wait; a failure: completes with it. */
  private @Nullable Object verdict(W w) {
    Sem s = w.sem;
    return switch (w.kind) {
      case DECREMENT, ENTRY -> {
        Sem sem = semOf(w);
        yield heldBack(sem, w.seq) || sem.value == 0 ? BLOCKED : null;
      }
      case ACQUIRE, LEASE -> {
        Sem sem = semOf(w);
        yield heldBack(sem, w.seq) || sem.value < w.amount ? BLOCKED : null;
      }
      case ZERO -> s != null && s.value == 0 ? null : BLOCKED;
      case SEMOP -> evaluate(w.ses, w.ops, w.seq);
      case CALL -> BLOCKED;
    };
  }

  private void serve(W w) {
    Sem s = w.sem;
    switch (w.kind) {
      case ENTRY -> {
        Sem sem = semOf(w);
        long amount = Math.min(sem.value, w.amount);
        st.waiters.remove(w);
        entryOf(w).pending = null;
        grantEntry(entryOf(w), amount);
      }
      case DECREMENT -> {
        Sem sem = semOf(w);
        Reply reply = take(w.ses, w.requestId, w.seq, sem, Math.min(sem.value, w.amount), w.owned);
        finish(w, reply);
      }
      case ACQUIRE -> finish(w, take(w.ses, w.requestId, w.seq, semOf(w), w.amount, w.owned));
      case LEASE -> finish(w, lease(w.ses, w.requestId, w.seq, semOf(w), w.amount, w.leaseTtl));
      case SEMOP -> {
        Object verdict = evaluate(w.ses, w.ops, w.seq);
        if (verdict instanceof Result.Failure failure) {
          complete(w, failure);
        } else {
          finish(w, applySemop(w.ses, w.requestId, w.seq, w.ops));
        }
      }
      default -> throw new IllegalStateException("cannot serve " + w.kind + " on " + s);
    }
  }

  private boolean heldBack(Sem s, long seq) {
    if (s.policy != io.semafor.Policy.FIFO) {
      return false;
    }
    for (W e : st.waiters) {
      if (e.seq < seq && e.takesAllFrom(s)) {
        return true;
      }
    }
    return false;
  }

  /** docs/semantics.md#semop on a scratch copy; held back anywhere means not evaluated further. */
  private @Nullable Object evaluate(Ses ses, List<Op> ops, long seq) {
    for (Op op : ops) {
      if (op.delta() < 0 && heldBack(op.sem(), seq)) {
        return op.noWait() ? fail(ErrorCode.WOULD_BLOCK) : BLOCKED;
      }
    }
    Map<Sem, long[]> scratch = new LinkedHashMap<>(); // value, outstanding, adjustment
    for (Op op : ops) {
      Hold hold = ses.holds.get(op.sem());
      scratch.putIfAbsent(
          op.sem(),
          new long[] {op.sem().value, outstanding(op.sem()), hold == null ? 0 : hold.adj});
    }
    for (Op op : ops) {
      long[] x = java.util.Objects.requireNonNull(scratch.get(op.sem()));
      long d = op.delta();
      if (d < 0) {
        if (x[0] < -d) {
          return op.noWait() ? fail(ErrorCode.WOULD_BLOCK) : BLOCKED;
        }
        x[0] += d;
        if (op.owned()) {
          long before = Math.max(x[2], 0);
          x[2] -= d;
          x[1] += Math.max(x[2], 0) - before;
        } else {
          x[1] -= d;
        }
      } else if (d == 0) {
        if (x[0] != 0) {
          return op.noWait() ? fail(ErrorCode.WOULD_BLOCK) : BLOCKED;
        }
      } else {
        long room = op.sem().ceiling() - x[1] - x[0];
        if (op.owned()) {
          if (x[2] < Long.MIN_VALUE + d) {
            return fail(ErrorCode.OVERFLOW);
          }
          long before = Math.max(x[2], 0);
          x[2] -= d;
          long paidBack = before - Math.max(x[2], 0);
          if (d - paidBack > room) {
            return fail(ErrorCode.OVERFLOW);
          }
          x[1] -= paidBack;
        } else if (d > room) {
          return fail(ErrorCode.OVERFLOW);
        }
        x[0] += d;
      }
    }
    return null;
  }

  private Reply take(Ses ses, long id, long seq, Sem s, long amount, boolean owned) {
    long token = ++st.token;
    s.value -= amount;
    if (owned) {
      List<Long> slots = adjust(ses, s, amount);
      return record(
          ses, id, new Result.Granted(amount, token, seq, slots), List.of(), List.of(), null);
    }
    return record(
        ses,
        id,
        new Result.Granted(amount, token, seq, List.of()),
        List.of(s),
        List.of(amount),
        null);
  }

  private Reply lease(Ses ses, long id, long seq, Sem s, long amount, long ttl) {
    long token = ++st.token;
    long permitId = ++st.permitIds;
    s.value -= amount;
    List<Long> slots = s.slotted ? freeSlots(s, amount) : List.of();
    long expiresAt = deadline(ttl);
    Lease lease = new Lease(permitId, s, amount, slots, token, st.now, expiresAt, ses);
    st.leases.put(permitId, lease);
    effects.add(new Effect.ArmTimer(new TimerKey.LeaseEnd(permitId), expiresAt));
    return record(
        ses,
        id,
        new Result.LeaseGranted(permitId, amount, token, seq, slots, expiresAt),
        List.of(),
        List.of(),
        lease);
  }

  private Reply applySemop(Ses ses, long id, long seq, List<Op> ops) {
    long token = ++st.token;
    Map<Sem, Long> transit = new LinkedHashMap<>();
    List<List<Long>> slots = new ArrayList<>();
    for (Op op : ops) {
      Sem s = op.sem();
      List<Long> opSlots = List.of();
      if (op.delta() < 0) {
        s.value += op.delta();
        if (op.owned()) {
          opSlots = adjust(ses, s, -op.delta());
        } else {
          transit.merge(s, -op.delta(), Long::sum);
        }
      } else if (op.delta() > 0) {
        if (op.owned()) {
          adjust(ses, s, -op.delta());
        }
        s.value += op.delta();
      }
      slots.add(opSlots);
    }
    List<Sem> sems = new ArrayList<>();
    List<Long> amounts = new ArrayList<>();
    for (Sem s : distinct(ops)) {
      Long amount = transit.get(s);
      if (amount != null && amount > 0) {
        sems.add(s);
        amounts.add(amount);
      }
    }
    return record(ses, id, new Result.SemopDone(true, token, seq, slots), sems, amounts, null);
  }

  /**
   * Changes a session's adjustment; on a slotted semaphore, newly owned permits take the lowest
   * free slots and permits no longer owned free the most recently taken.
   */
  private List<Long> adjust(Ses ses, Sem s, long delta) {
    Hold hold = ses.holds.computeIfAbsent(s, k -> new Hold());
    long before = Math.max(hold.adj, 0);
    hold.adj += delta;
    long after = Math.max(hold.adj, 0);
    List<Long> taken = List.of();
    if (s.slotted && after > before) {
      taken = freeSlots(s, after - before);
      hold.slots.addAll(taken);
    } else if (s.slotted && after < before) {
      for (long i = 0; i < before - after; i++) {
        hold.slots.remove(hold.slots.size() - 1);
      }
    }
    if (hold.adj == 0) {
      ses.holds.remove(s);
    }
    return taken;
  }

  private List<Long> freeSlots(Sem s, long count) {
    Set<Long> used = new HashSet<>();
    for (Ses ses : st.sessions.values()) {
      Hold hold = ses.holds.get(s);
      if (hold != null) {
        used.addAll(hold.slots);
      }
    }
    for (Lease lease : st.leases.values()) {
      if (lease.sem == s) {
        used.addAll(lease.slots);
      }
    }
    List<Long> slots = new ArrayList<>();
    for (long slot = 1; slots.size() < count; slot++) {
      if (!used.contains(slot)) {
        slots.add(slot);
      }
    }
    return slots;
  }

  // ---------------------------------------------------------------- bookkeeping

  private void enqueue(W w) {
    st.waiters.add(w);
    w.ses.requests.put(w.requestId, w);
    if (w.deadline != ModelState.NO_DEADLINE) {
      effects.add(
          new Effect.ArmTimer(new TimerKey.WaiterTimeout(w.ses.id, w.requestId), w.deadline));
    }
  }

  private void complete(W w, Result result) {
    finish(w, record(w.ses, w.requestId, result, List.of(), List.of(), null));
  }

  private void finish(W w, Reply reply) {
    st.waiters.remove(w);
    WList list = w.list;
    if (list != null) {
      list.call = null;
    }
    cancelTimer(w);
    effects.add(new Effect.Complete(reply));
  }

  private void cancelTimer(W w) {
    if (w.deadline != ModelState.NO_DEADLINE) {
      effects.add(new Effect.CancelTimer(new TimerKey.WaiterTimeout(w.ses.id, w.requestId)));
    }
  }

  private Reply record(
      Ses ses, long id, Result result, List<Sem> sems, List<Long> amounts, @Nullable Lease lease) {
    Reply reply = new Reply(ses.id, id, st.revision, result);
    ses.requests.put(id, new Done(reply, sems, amounts, lease));
    ses.unacked++;
    return reply;
  }

  private long deadline(long timeout) {
    if (timeout < 0) {
      return ModelState.NO_DEADLINE;
    }
    long d = st.now + timeout;
    return d < st.now ? ModelState.NO_DEADLINE - 1 : Math.min(d, ModelState.NO_DEADLINE - 1);
  }

  private int waitingCount(Ses ses) {
    int n = 0;
    for (W w : st.waiters) {
      n += w.ses == ses && w.kind != Kind.ENTRY ? 1 : 0;
    }
    for (WList list : ses.lists.values()) {
      n += list.entries.size();
    }
    return n;
  }

  private Result.@Nullable Failure perSession(Ses ses, Sem s, long requested) {
    if (s.maxPerSession == 0 || requested == 0) {
      return null;
    }
    if (requested > s.maxPerSession) {
      return fail(ErrorCode.INVALID_ARGUMENT);
    }
    Hold hold = ses.holds.get(s);
    long held = hold == null ? 0 : Math.max(hold.adj, 0);
    for (W w : st.waiters) {
      if (w.ses != ses) {
        continue;
      }
      if ((w.kind == Kind.DECREMENT || w.kind == Kind.ACQUIRE) && w.owned && w.sem == s) {
        held += w.amount;
      } else if (w.kind == Kind.SEMOP) {
        for (Op op : w.ops) {
          if (op.sem() == s && op.delta() < 0 && op.owned()) {
            held -= op.delta();
          }
        }
      }
    }
    return held + requested > s.maxPerSession ? fail(ErrorCode.ALREADY_HELD) : null;
  }

  /** Everything taken from {@code s} that is still answerable for (docs/semantics.md#capacity). */
  long outstanding(Sem s) {
    long sum = 0;
    for (Ses ses : st.sessions.values()) {
      Hold hold = ses.holds.get(s);
      if (hold != null) {
        sum += Math.max(hold.adj, 0);
      }
      sum += inTransit(ses, s);
    }
    for (Lease lease : st.leases.values()) {
      sum += lease.sem == s ? lease.amount : 0;
    }
    return sum;
  }

  private static long inTransit(Ses ses, Sem s) {
    long sum = 0;
    for (Object request : ses.requests.values()) {
      if (request instanceof Done d) {
        for (int i = 0; i < d.sems.size(); i++) {
          sum += d.sems.get(i) == s ? d.amounts.get(i) : 0;
        }
      }
    }
    for (WList list : ses.lists.values()) {
      for (Entry e : list.entries) {
        sum += e.sem == s && !e.deleted ? e.granted : 0;
      }
    }
    return sum;
  }

  private static List<Sem> distinct(List<Op> ops) {
    List<Sem> out = new ArrayList<>();
    for (Op op : ops) {
      if (!out.contains(op.sem())) {
        out.add(op.sem());
      }
    }
    return out;
  }

  private Result missing(Name name) {
    return validName(name) ? fail(ErrorCode.NOT_FOUND) : fail(ErrorCode.INVALID_ARGUMENT);
  }

  private boolean validName(Name name) {
    return name.isValid(limits.maxNameBytes());
  }

  private static Result.Failure fail(ErrorCode code) {
    return new Result.Failure(code, "");
  }

  private static Result notDone(W w) {
    return w.kind == Kind.CALL ? new Result.WaitManyReported(List.of()) : notDone(w.kind, w.seq);
  }

  private static Result notDone(Kind kind, long seq) {
    return switch (kind) {
      case DECREMENT, ACQUIRE -> new Result.Granted(0, 0, seq, List.of());
      case LEASE -> new Result.LeaseGranted(0, 0, 0, seq, List.of(), 0);
      case ZERO -> new Result.ZeroReached(false, seq);
      case SEMOP -> new Result.SemopDone(false, 0, seq, List.of());
      default -> throw new IllegalStateException("no answer for " + kind);
    };
  }

  private static io.semafor.SemaphoreOptions options(Sem s) {
    return new io.semafor.SemaphoreOptions(s.capacity, s.policy, s.maxPerSession);
  }

  private static Sem semOf(W w) {
    Sem s = w.sem;
    if (s == null) {
      throw new IllegalStateException("waiter without a semaphore");
    }
    return s;
  }

  private static Entry entryOf(W w) {
    Entry e = w.entry;
    if (e == null) {
      throw new IllegalStateException("waiter without an entry");
    }
    return e;
  }

  private static WList listOf(W w) {
    WList l = w.list;
    if (l == null) {
      throw new IllegalStateException("call without a list");
    }
    return l;
  }

  // ---------------------------------------------------------------- what tests compare

  /** The same view {@code Query.Get} gives, computed by scanning. */
  public Result.@Nullable SemaphoreStatus status(Name name) {
    Sem s = st.sems.get(name);
    if (s == null) {
      return null;
    }
    int waiters = 0;
    for (W w : st.waiters) {
      waiters += w.kind != Kind.CALL && w.involves(s) ? 1 : 0;
    }
    long owned = 0;
    int holders = 0;
    for (Ses ses : st.sessions.values()) {
      Hold hold = ses.holds.get(s);
      if (hold != null && hold.adj > 0) {
        owned += hold.adj;
        holders++;
      }
    }
    long leased = 0;
    int leases = 0;
    for (Lease lease : st.leases.values()) {
      leased += lease.sem == s ? lease.amount : 0;
      leases += lease.sem == s ? 1 : 0;
    }
    return new Result.SemaphoreStatus(
        name,
        s.value,
        options(s),
        waiters,
        holders,
        leases,
        owned,
        leased,
        outstanding(s) - owned - leased);
  }

  /** The complete view that {@code Query.Inspect}'s pages give together, computed by scanning. */
  public Result.@Nullable SemaphoreDetail inspect(Name name) {
    Result.SemaphoreStatus status = status(name);
    Sem s = st.sems.get(name);
    if (status == null || s == null) {
      return null;
    }
    List<Result.WaiterView> queue = new ArrayList<>();
    for (W w : st.waiters) {
      if (w.kind == Kind.CALL || !w.involves(s)) {
        continue;
      }
      long amount = w.amount;
      if (w.kind == Kind.SEMOP) {
        amount = 0;
        for (Op op : w.ops) {
          amount += op.sem() == s ? op.delta() : 0;
        }
      }
      queue.add(
          new Result.WaiterView(
              w.ses.id,
              w.requestId,
              w.seq,
              kindName(w),
              amount,
              w.deadline == ModelState.NO_DEADLINE ? -1 : w.deadline));
    }
    List<Result.HolderView> holders = new ArrayList<>();
    for (Ses ses : st.sessions.values()) {
      Hold hold = ses.holds.get(s);
      if (hold != null && hold.adj != 0) {
        holders.add(new Result.HolderView(ses.id, hold.adj, hold.slots));
      }
    }
    List<Result.LeaseView> leases = new ArrayList<>();
    for (Lease lease : st.leases.values()) {
      if (lease.sem == s) {
        Ses to = lease.undeliveredTo;
        leases.add(
            new Result.LeaseView(
                lease.id,
                to == null ? 0 : to.id,
                lease.amount,
                lease.slots,
                lease.token,
                lease.grantedAt,
                lease.expiresAt));
      }
    }
    return new Result.SemaphoreDetail(status, queue, holders, leases);
  }

  private static String kindName(W w) {
    return switch (w.kind) {
      case DECREMENT -> w.owned ? "decrement-owned" : "decrement";
      case ACQUIRE -> w.owned ? "acquire-owned" : "acquire";
      case LEASE -> "lease";
      case ZERO -> "await-zero";
      case ENTRY -> "wait-many";
      case SEMOP -> "semop";
      case CALL -> "wait-many-call";
    };
  }

  /** The timers that should be armed, as {@code SemaphoreMachine.timers()} lists them. */
  public Set<Effect.ArmTimer> timers() {
    Set<Effect.ArmTimer> out = new HashSet<>();
    for (W w : st.waiters) {
      if (w.requestId != 0 && w.deadline != ModelState.NO_DEADLINE) {
        out.add(new Effect.ArmTimer(new TimerKey.WaiterTimeout(w.ses.id, w.requestId), w.deadline));
      }
    }
    for (Lease lease : st.leases.values()) {
      out.add(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.id), lease.expiresAt));
    }
    return out;
  }

  /** The names of every live semaphore. */
  public Set<Name> names() {
    return new HashSet<>(st.sems.keySet());
  }

  /** Live session ids. */
  public Set<Long> sessionIds() {
    return new HashSet<>(st.sessions.keySet());
  }
}
