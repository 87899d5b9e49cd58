package io.semafor.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The server side of IRIS WaitMany, with the merging rules of docs/semantics.md#waitmany:
 *
 * <ol type="a">
 *   <li>adding to an entry whose request is still unsatisfied merges the amounts and keeps the
 *       first request's place;
 *   <li>adding to an entry that holds an unreported grant tries the new amount at once (partial)
 *       and adds what it gets to the grant; if nothing is there it waits as a new request;
 *   <li>a partial grant completes its request and the unmet rest is forgotten;
 *   <li>reporting or removing an entry cancels its pending request; removing one that holds an
 *       unreported grant gives the grant back.
 * </ol>
 */
final class WaitManyCommands {
  private final Engine engine;
  private final Grants grants;

  WaitManyCommands(Engine engine, Grants grants) {
    this.engine = engine;
    this.grants = grants;
  }

  Reply add(Session session, long requestId, Operation.AddToWaitMany op) {
    Result.Failure failure = Check.positive("amount", op.amount());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = engine.semaphores.get(op.name());
    if (s == null) {
      return engine.answer(session, requestId, engine.noSemaphore(op.name()));
    }
    WaitList list = session.waitList(op.listId());
    WaitManyEntry entry = list == null ? null : list.entries.get(s);
    if (entry == null) {
      failure = roomForEntry(session, list);
      if (failure != null) {
        return engine.answer(session, requestId, failure);
      }
      if (list == null) {
        list = new WaitList(session, op.listId());
        session.waitLists.put(op.listId(), list);
      }
      entry = new WaitManyEntry(list, s, list.nextOrdinal++);
      list.entries.put(s, entry);
      s.holders().entries.add(entry);
      session.waiting++;
      request(entry, op.amount());
    } else if (entry.pending != null) {
      SingleWaiter pending = entry.pending;
      if (pending.requested > Long.MAX_VALUE - op.amount()) {
        return engine.answer(
            session,
            requestId,
            Check.invalid("amount", "the entry's merged request would pass 2^63-1"));
      }
      pending.requested += op.amount();
    } else {
      request(entry, op.amount());
    }
    engine.changed(s); // a grant, a queued request, or a queued request grown
    SingleWaiter pending = entry.pending;
    long stillPending = pending == null ? 0 : pending.requested;
    return engine.answer(session, requestId, new Result.WaitManyAdded(entry.granted, stillPending));
  }

  private Result.@Nullable Failure roomForEntry(Session session, @Nullable WaitList list) {
    int max = engine.limits.maxWaitManyEntries();
    if (list != null && list.entries.size() >= max) {
      return Check.exhausted(
          "maxWaitManyEntries", max, "WaitMany list " + list.listId + " is full");
    }
    return engine.roomToWait(session);
  }

  /** Tries {@code amount} at once as a partial decrement; what cannot be had now waits. */
  private void request(WaitManyEntry entry, long amount) {
    Semaphore s = entry.semaphore;
    long seq = engine.nextSeq();
    if (s.value > 0 && !s.holdsBack(seq)) {
      grants.grantEntry(entry, Math.min(s.value, amount));
      return;
    }
    SingleWaiter waiter =
        new SingleWaiter(
            entry.list.session(),
            0,
            seq,
            Waiter.NO_DEADLINE,
            s,
            SingleWaiter.WAIT_MANY_ENTRY,
            amount,
            false,
            0,
            entry);
    s.queue().append(waiter);
    entry.pending = waiter;
  }

  Reply remove(Session session, long requestId, Operation.RemoveFromWaitMany op) {
    WaitList list = session.waitList(op.listId());
    WaitManyEntry entry = list == null ? null : find(list, op.name());
    if (list == null || entry == null) {
      return engine.answer(session, requestId, new Result.WaitManyRemoved(false, 0));
    }
    long returned = entry.deleted ? 0 : entry.granted;
    drop(entry, true);
    if (list.entries.isEmpty() && list.call != null) {
      WaitManyCall call = list.call;
      engine.complete(call, call.notDone());
    }
    forgetIfEmpty(session, list);
    return engine.answer(session, requestId, new Result.WaitManyRemoved(true, returned));
  }

  /** The entry for the semaphore now named {@code name}, or else one for a deleted namesake. */
  private @Nullable WaitManyEntry find(WaitList list, Name name) {
    Semaphore live = engine.semaphores.get(name);
    WaitManyEntry entry = live == null ? null : list.entries.get(live);
    if (entry != null) {
      return entry;
    }
    for (WaitManyEntry e : list.entries.values()) {
      if (e.deleted && Arrays.equals(e.semaphore.name, name.bytes())) {
        return e;
      }
    }
    return null;
  }

  @Nullable Reply waitMany(Session session, long requestId, Operation.WaitMany op) {
    Result.Failure failure = Check.timeout(op.timeout());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    WaitList list = session.waitList(op.listId());
    if (list == null || list.entries.isEmpty()) {
      return engine.answer(session, requestId, new Result.WaitManyReported(List.of()));
    }
    if (list.call != null) {
      return engine.answer(
          session,
          requestId,
          Check.invalid("listId", "a waitMany call already waits on list " + op.listId()));
    }
    if (list.hasReport()) {
      return report(session, requestId, list);
    }
    if (op.timeout() == 0) {
      return engine.answer(session, requestId, new Result.WaitManyReported(List.of()));
    }
    failure = engine.roomToWait(session);
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    WaitManyCall call =
        new WaitManyCall(session, requestId, engine.nextSeq(), engine.deadline(op.timeout()), list);
    list.call = call;
    engine.enqueue(call);
    return null;
  }

  /**
   * After a restore: the lists whose waiting call has something to report are ready again (they
   * exist only while grants are pending; otherwise every such call was answered).
   */
  void resumeReadyLists() {
    engine.sessions.forEachValue(
        session -> {
          for (WaitList list : session.waitLists.values()) {
            if (list.call != null && list.hasReport()) {
              engine.ready(list);
            }
          }
        });
  }

  /** Answers, in arrival order, the waiting calls of lists that now have something to report. */
  void answerReadyLists() {
    List<WaitList> ready = engine.readyLists();
    if (ready.isEmpty()) {
      return;
    }
    List<WaitManyCall> calls = new ArrayList<>();
    for (WaitList list : ready) {
      if (list.call != null && list.hasReport()) {
        calls.add(list.call);
      }
    }
    ready.clear();
    calls.sort(Comparator.comparingLong(c -> c.seq));
    for (WaitManyCall call : calls) {
      Reply reply = report(call.session, call.requestId, call.list);
      engine.complete(call, reply);
      forgetIfEmpty(call.session, call.list);
    }
  }

  /**
   * Reports every entry that has a grant (0 for a deleted semaphore), round robin from the entry
   * after the one reported last, and removes them from the list. The granted amounts stay in
   * transit until the client acknowledges the reply.
   */
  private Reply report(Session session, long requestId, WaitList list) {
    List<WaitManyEntry> ready = new ArrayList<>();
    for (WaitManyEntry e : list.entries.values()) {
      if (e.ready()) {
        ready.add(e);
      }
    }
    long after = list.lastReported;
    ready.sort(
        Comparator.comparingLong((WaitManyEntry e) -> e.ordinal > after ? 0 : 1)
            .thenComparingLong(e -> e.ordinal));
    List<Result.Report> reports = new ArrayList<>(ready.size());
    List<Semaphore> moving = new ArrayList<>();
    List<Long> amounts = new ArrayList<>();
    for (WaitManyEntry e : ready) {
      long granted = e.deleted ? 0 : e.granted;
      reports.add(new Result.Report(e.semaphore.name(), granted, e.token));
      if (granted > 0) {
        moving.add(e.semaphore);
        amounts.add(granted);
      }
      drop(e, false);
      list.lastReported = e.ordinal;
    }
    forgetIfEmpty(session, list);
    long[] transit = new long[amounts.size()];
    for (int i = 0; i < transit.length; i++) {
      transit[i] = amounts.get(i);
    }
    return engine.answer(
        session,
        requestId,
        new Result.WaitManyReported(reports),
        moving.toArray(new Semaphore[0]),
        transit);
  }

  /**
   * Takes an entry out of its list, cancelling its pending request; its unreported grant goes back
   * to the semaphore if {@code giveBack}, else the caller hands it over.
   */
  void drop(WaitManyEntry entry, boolean giveBack) {
    Semaphore s = entry.semaphore;
    SingleWaiter pending = entry.pending;
    if (pending != null) {
      engine.unqueue(pending);
      entry.pending = null;
    }
    if (giveBack && !entry.deleted && entry.granted > 0) {
      s.outstanding -= entry.granted;
      s.value += entry.granted;
      engine.touch(s);
    }
    entry.list.entries.remove(s);
    HolderTable table = s.holders;
    if (table != null) {
      table.entries.remove(entry);
      s.compact();
    }
    if (!s.deleted()) { // a deleted one was told once, when it was deleted
      engine.changed(s);
    }
    entry.list.session().waiting--;
  }

  /** An empty list with no call behaves exactly like no list, so it is not kept. */
  private static void forgetIfEmpty(Session session, WaitList list) {
    if (list.entries.isEmpty() && list.call == null) {
      session.waitLists.remove(list.listId);
    }
  }
}
