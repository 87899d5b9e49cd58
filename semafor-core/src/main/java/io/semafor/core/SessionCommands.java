package io.semafor.core;

import io.semafor.ErrorCode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Sessions (docs/semantics.md#sessions): open, close, expiry, acknowledgement of replies, and owned
 * releases. When a session ends, nothing it held is lost: its waiters are withdrawn, what it owned
 * goes back (SysV undo), and grants it never acknowledged go back too.
 */
final class SessionCommands {
  private final Engine engine;
  private final LeaseCommands leases;
  private final WaitManyCommands waitMany;

  SessionCommands(Engine engine, LeaseCommands leases, WaitManyCommands waitMany) {
    this.engine = engine;
    this.leases = leases;
    this.waitMany = waitMany;
  }

  Result open(Command.OpenSession command) {
    Result.Failure failure = Check.positive("ttl", command.ttl());
    if (failure == null) {
      failure = Check.client(command.client());
    }
    if (failure == null) {
      failure = command.owner().check();
    }
    if (failure != null) {
      return failure;
    }
    int max = engine.limits.maxSessions();
    if (engine.sessions.size() >= max) {
      return Check.exhausted("maxSessions", max, "no more sessions can be opened");
    }
    engine.keyIds(command.idEntropy());
    long id = engine.nextSessionId();
    engine.addSession(
        new Session(id, command.ttl(), command.client(), command.owner(), engine.now, engine.now));
    engine.emit(new Effect.SessionStarted(id, command.ttl(), command.owner()));
    return new Result.SessionOpened(id, command.ttl());
  }

  /**
   * Ends a session whose TTL passed. The leader tracks keep-alives, which are not logged; the
   * machine only knows the last logged command, so it refuses an expiry sooner than a TTL after
   * that, which can only be early.
   */
  Result expire(Command.ExpireSession command) {
    Session session = engine.session(command.sessionId());
    if (session == null) {
      return new Result.Expiry(false);
    }
    long expiresAt = session.lastSeen + session.ttl;
    if (expiresAt < session.lastSeen) {
      expiresAt = Long.MAX_VALUE;
    }
    if (engine.now < expiresAt) {
      return new Result.Expiry(false);
    }
    end(session);
    return new Result.Expiry(true);
  }

  /** Ends another session by its id (an operator's {@code semafor session end}). */
  Reply endOther(Session caller, long requestId, Operation.EndSession command) {
    Result result;
    Session target = engine.session(command.sessionId());
    if (command.sessionId() == caller.id) {
      result = Check.invalid("sessionId", "is this session's own id: close the session to end it");
    } else if (target == null) {
      result =
          new Result.Failure(
              ErrorCode.NOT_FOUND,
              "sessionId: session " + command.sessionId() + " does not exist or has ended");
    } else {
      end(target);
      result = new Result.SessionEnded(command.sessionId());
    }
    return engine.answer(caller, requestId, result);
  }

  Reply close(Session session, long requestId) {
    end(session);
    return new Reply(session.id, requestId, engine.revision, new Result.SessionClosed());
  }

  /**
   * Marks replies as received: amounts in transit are now the client's, and a lease now outlives
   * the session. Unknown ids, and ids of requests still waiting, are ignored.
   */
  void acknowledge(Session session, List<Long> acks) {
    for (int k = 0; k < acks.size(); k++) {
      long id = acks.get(k);
      Object kept = session.requests.get(id);
      if (kept instanceof Reply) {
        session.requests.remove(id);
        session.unacked--;
        continue;
      }
      if (!(kept instanceof Delivery delivery)) {
        continue;
      }
      session.requests.remove(id);
      session.unacked--;
      for (int i = 0; i < delivery.transfers(); i++) {
        Semaphore s = delivery.semaphore(i);
        if (!s.deleted()) {
          s.outstanding -= delivery.amount(i);
          engine.changed(s); // what is undelivered there
        }
      }
      Lease lease = delivery.lease;
      if (lease != null && session.equals(lease.undeliveredTo)) {
        lease.undeliveredTo = null;
        if (!lease.semaphore.deleted()) {
          engine.changed(lease.semaphore); // the lease now outlives the session
        }
      }
    }
  }

  Reply release(Session session, long requestId, Operation.Release op) {
    Result.Failure failure = Check.positive("amount", op.amount());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = engine.semaphores.get(op.name());
    if (s == null) {
      return engine.answer(session, requestId, engine.noSemaphore(op.name()));
    }
    Holding h = session.findHolding(s);
    long owned = h == null ? 0 : h.owned();
    if (h == null || op.amount() > owned) {
      return engine.answer(
          session,
          requestId,
          Check.invalid(
              "amount", "releases " + op.amount() + " of " + s + " but the session owns " + owned));
    }
    Ownership.disown(h, op.amount());
    s.value += op.amount();
    session.dropIfEmpty(h);
    engine.touch(s);
    return engine.answer(session, requestId, new Result.Released(op.amount()));
  }

  Reply releaseSlot(Session session, long requestId, Operation.ReleaseSlot op) {
    Result.Failure failure = Check.positive("slot", op.slot());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = engine.semaphores.get(op.name());
    if (s == null) {
      return engine.answer(session, requestId, engine.noSemaphore(op.name()));
    }
    Holding h = session.findHolding(s);
    if (h == null || !s.slotted() || !h.holdsSlot(op.slot())) {
      return engine.answer(
          session,
          requestId,
          Check.invalid("slot", "the session holds no slot " + op.slot() + " of " + s));
    }
    Ownership.releaseSlot(h, op.slot());
    session.dropIfEmpty(h);
    engine.touch(s);
    return engine.answer(session, requestId, new Result.Released(1));
  }

  /** Ends a session by close or expiry; the caller settles the semaphores it touched. */
  void end(Session session) {
    List<Waiter> waiting = new ArrayList<>();
    List<Delivery> deliveries = new ArrayList<>();
    session.requests.forEachValue(
        request -> {
          if (request instanceof Waiter w) {
            waiting.add(w);
          } else if (request instanceof Delivery d) {
            deliveries.add(d);
          }
        });
    waiting.sort(Comparator.comparingLong(w -> w.seq));
    for (Waiter w : waiting) {
      engine.complete(
          w,
          new Result.Failure(
              ErrorCode.SESSION_EXPIRED,
              "sessionId: session " + session.id + " ended while this request waited"));
    }
    for (WaitList list : new ArrayList<>(session.waitLists.values())) {
      for (WaitManyEntry entry : new ArrayList<>(list.entries.values())) {
        waitMany.drop(entry, true);
      }
    }
    session.waitLists.clear();
    deliveries.sort(Comparator.comparingLong(d -> d.reply.requestId()));
    for (Delivery d : deliveries) {
      giveBack(session, d);
    }
    for (Holding h : new ArrayList<>(session.holdings.values())) {
      Ownership.undo(h);
      h.pendingOwned = 0;
      session.dropIfEmpty(h);
      engine.touch(h.semaphore);
    }
    session.requests.clear();
    engine.removeSession(session.id);
    engine.emit(new Effect.SessionEnded(session.id));
  }

  /**
   * Returns what an unacknowledged reply was handing over (docs/semantics.md#delivery: at least
   * once).
   */
  private void giveBack(Session session, Delivery d) {
    for (int i = 0; i < d.transfers(); i++) {
      Semaphore s = d.semaphore(i);
      if (!s.deleted()) {
        s.outstanding -= d.amount(i);
        s.value += d.amount(i);
        engine.touch(s);
      }
    }
    Lease lease = d.lease;
    if (lease != null
        && session.equals(lease.undeliveredTo)
        && engine.leases.containsKey(lease.permitId)) {
      leases.end(lease);
    }
  }
}
