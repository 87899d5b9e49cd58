package io.semafor.core;

import io.semafor.SemaphoreOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The whole replicated state and the bookkeeping of the command being applied: its revision and log
 * time, the effects it produced, and the semaphores whose waiters must be reconsidered.
 *
 * <p>Single-threaded by contract: the replicator applies one command at a time.
 */
final class Engine {
  final Limits limits;
  final SemaphoreIndex semaphores;
  final LongTable<Session> sessions = new LongTable<>();

  /**
   * The live sessions' ids in order, so a page of {@code session list} costs O(log n + page)
   * instead of sorting every id. Kept by {@link #addSession} and {@link #removeSession}.
   */
  final TreeSet<Long> sessionIds = new TreeSet<>();

  final LinkedHashMap<Long, Lease> leases = new LinkedHashMap<>();

  /** Revision and log time of the command being applied (or last applied). */
  long revision;

  long now;
  long lastSeq;
  long lastToken;
  long lastSessionId;
  long lastPermitId;

  /**
   * Makes session and lease ids unguessable once set; null until the first session opened with
   * entropy (a machine fed no entropy, as in tests, numbers them 1, 2, 3…).
   */
  @Nullable IdCipher ids;

  private final ArrayList<Effect> effects = new ArrayList<>();
  private final ArrayList<Semaphore> touched = new ArrayList<>();
  private final ArrayList<Semaphore> changed = new ArrayList<>();
  private final ArrayList<WaitList> readyLists = new ArrayList<>();

  Engine(Limits limits, SemaphoreIndex semaphores) {
    this.limits = limits;
    this.semaphores = semaphores;
  }

  long nextSeq() {
    return ++lastSeq;
  }

  long nextToken() {
    return ++lastToken;
  }

  /**
   * Keys the ids with {@code entropy}, unless they are keyed already or it is {@link Secret#NONE}.
   */
  void keyIds(Secret entropy) {
    if (ids == null && !entropy.isNone()) {
      ids = new IdCipher(entropy);
    }
  }

  /** A new session's id: never 0, never a live session's. */
  long nextSessionId() {
    IdCipher cipher = ids;
    if (cipher == null) {
      return ++lastSessionId;
    }
    while (true) {
      long id = cipher.id(IdCipher.SESSIONS, ++lastSessionId);
      if (id != 0 && sessions.get(id) == null) {
        return id;
      }
    }
  }

  /** A new lease's permit id: never 0, never a live lease's. */
  long nextPermitId() {
    IdCipher cipher = ids;
    if (cipher == null) {
      return ++lastPermitId;
    }
    while (true) {
      long id = cipher.id(IdCipher.LEASES, ++lastPermitId);
      if (id != 0 && !leases.containsKey(id)) {
        return id;
      }
    }
  }

  /**
   * The log-time deadline of a wait of {@code timeout} nanoseconds starting now. A finite wait
   * keeps a finite deadline even if it overflows, so it stays armed and apart from "forever".
   */
  long deadline(long timeout) {
    if (timeout < 0) {
      return Waiter.NO_DEADLINE;
    }
    long d = now + timeout;
    return d < now ? Waiter.NO_DEADLINE - 1 : Math.min(d, Waiter.NO_DEADLINE - 1);
  }

  void emit(Effect effect) {
    effects.add(effect);
  }

  List<Effect> takeEffects() {
    if (effects.isEmpty()) {
      return List.of();
    }
    List<Effect> out = effects.size() == 1 ? List.of(effects.get(0)) : List.copyOf(effects);
    effects.clear();
    return out;
  }

  /**
   * Marks a semaphore whose waiters may now be served. One with no queue has nobody to serve, and a
   * request that arrives later in the same command is judged on the values it finds, so it is not
   * marked: the uncontended path then never touches the list (whose every store costs a GC write
   * barrier).
   */
  void touch(Semaphore s) {
    changed(s);
    if (s.queue != null && !s.touched() && !s.deleted()) {
      s.setTouched(true);
      touched.add(s);
    }
  }

  List<Semaphore> touched() {
    return touched;
  }

  /**
   * Marks a semaphore whose state as {@code inspect} shows it (value, queue, holders, leases, what
   * is undelivered) this command may have changed, or that it created or deleted: what watches are
   * told about ({@link Outcome#changed}). A mark too many costs a watcher an event that shows no
   * difference; a mark missing loses a change, so every path that changes a semaphore marks it
   * (ChangedSemaphoresProperties checks it against the state before and after every command).
   */
  void changed(Semaphore s) {
    if (!s.changed()) {
      s.setChanged(true);
      changed.add(s);
    }
  }

  /** The names the command marked changed, in the order first marked; clears the marks. */
  List<Name> takeChanged() {
    int n = changed.size();
    if (n == 0) {
      return List.of();
    }
    if (n == 1) { // most commands change one semaphore: no array, and Outcome keeps it as it is
      Semaphore s = changed.get(0);
      s.setChanged(false);
      changed.clear();
      return List.of(s.name());
    }
    Name[] out = new Name[n];
    for (int i = 0; i < n; i++) {
      Semaphore s = changed.get(i);
      s.setChanged(false);
      out[i] = s.name();
    }
    changed.clear();
    return List.of(out);
  }

  /** Marks a WaitMany list whose waiting call may now be answered. */
  void ready(WaitList list) {
    if (!readyLists.contains(list)) {
      readyLists.add(list);
    }
  }

  List<WaitList> readyLists() {
    return readyLists;
  }

  /** The failure for an operation on {@code name} that names no semaphore. */
  Result.Failure noSemaphore(Name name) {
    return Check.missing("name", name, limits.maxNameBytes());
  }

  @Nullable Session session(long id) {
    return sessions.get(id);
  }

  void addSession(Session session) {
    sessions.put(session.id, session);
    sessionIds.add(session.id);
  }

  void removeSession(long id) {
    sessions.remove(id);
    sessionIds.remove(id);
  }

  /** Keeps a reply that hands nothing over until the client acknowledges it, and returns it. */
  Reply answer(Session session, long requestId, Result result) {
    Reply reply = new Reply(session.id, requestId, revision, result);
    keep(session, requestId, reply);
    return reply;
  }

  /** Keeps a reply handing over {@code amount} taken from {@code s}, and returns it. */
  Reply answer(Session session, long requestId, Result result, Semaphore s, long amount) {
    Reply reply = new Reply(session.id, requestId, revision, result);
    keep(session, requestId, Delivery.of(reply, s, amount));
    return reply;
  }

  /** Keeps a reply handing over a lease, and returns it. */
  Reply answer(Session session, long requestId, Result result, Lease lease) {
    Reply reply = new Reply(session.id, requestId, revision, result);
    keep(session, requestId, Delivery.of(reply, lease));
    return reply;
  }

  /** Keeps a reply handing over amounts from several semaphores (maybe none), and returns it. */
  Reply answer(
      Session session, long requestId, Result result, Semaphore[] inTransit, long[] amounts) {
    if (inTransit.length == 0) {
      return answer(session, requestId, result);
    }
    Reply reply = new Reply(session.id, requestId, revision, result);
    keep(session, requestId, Delivery.of(reply, inTransit, amounts));
    return reply;
  }

  private static void keep(Session session, long requestId, Object kept) {
    session.requests.put(requestId, kept);
    session.unacked++;
  }

  /**
   * Queues a client request that must wait: in its semaphores' queues, in its session's requests,
   * and on a timer if it has a deadline.
   */
  void enqueue(Waiter waiter) {
    if (waiter instanceof SingleWaiter single) {
      single.semaphore.queue().append(single);
      changed(single.semaphore);
      if (single.owned) {
        addPendingOwned(single.session, single.semaphore, single.requested);
      }
    } else if (waiter instanceof SemopWaiter semop) {
      for (int d = 0; d < semop.nodes.length; d++) {
        semop.nodes[d].semaphore.queue().append(semop.nodes[d]);
        changed(semop.nodes[d].semaphore);
        addPendingOwned(semop.session, semop.nodes[d].semaphore, semop.plan.ownedTakes(d));
      }
    }
    Session session = waiter.session;
    session.requests.put(waiter.requestId, waiter);
    session.waiting++;
    if (waiter.deadline != Waiter.NO_DEADLINE) {
      emit(
          new Effect.ArmTimer(
              new TimerKey.WaiterTimeout(session.id, waiter.requestId), waiter.deadline));
    }
  }

  /** The failure for a session that may queue no more, or null if it may. */
  Result.@Nullable Failure roomToWait(Session session) {
    int max = limits.maxWaitersPerSession();
    return session.waiting < max
        ? null
        : Check.exhausted(
            "maxWaitersPerSession",
            max,
            "session " + session.id + " already has " + max + " waiting");
  }

  /**
   * Takes a waiter out of every queue it is in, and marks those semaphores for reconsideration:
   * removing a blocker can let later waiters through.
   */
  void unqueue(Waiter waiter) {
    if (waiter instanceof SingleWaiter single) {
      Semaphore s = single.semaphore;
      s.queue().remove(single);
      if (single.owned) {
        releasePendingOwned(single.session, s, single.requested);
      }
      touch(s);
      s.compact();
    } else if (waiter instanceof SemopWaiter semop) {
      for (int d = 0; d < semop.nodes.length; d++) {
        Semaphore s = semop.nodes[d].semaphore;
        s.queue().remove(semop.nodes[d]);
        releasePendingOwned(semop.session, s, semop.plan.ownedTakes(d));
        touch(s);
        s.compact();
      }
    } else if (waiter instanceof WaitManyCall call) {
      call.list.call = null;
    }
    if (waiter.deadline != Waiter.NO_DEADLINE) {
      emit(new Effect.CancelTimer(new TimerKey.WaiterTimeout(waiter.session.id, waiter.requestId)));
    }
  }

  /**
   * Counts an owned request now queued against {@code maxPerSession}
   * (docs/semantics.md#max-per-session: held plus requested). Tracked only where a limit applies.
   */
  void addPendingOwned(Session session, Semaphore s, long amount) {
    if (amount > 0 && s.maxPerSession != SemaphoreOptions.NO_LIMIT) {
      session.holding(s).pendingOwned += amount;
    }
  }

  private void releasePendingOwned(Session session, Semaphore s, long amount) {
    if (amount > 0 && s.maxPerSession != SemaphoreOptions.NO_LIMIT) {
      Holding h = session.findHolding(s);
      if (h != null) {
        h.pendingOwned -= amount;
        session.dropIfEmpty(h);
      }
    }
  }

  /**
   * Completes a waiting client request: takes it out of its queues, and sends the reply already
   * recorded by {@link #answer}.
   */
  void complete(Waiter waiter, Reply reply) {
    unqueue(waiter);
    waiter.session.waiting--;
    emit(new Effect.Complete(reply));
  }

  /** Completes a waiting client request with a result that hands nothing over. */
  void complete(Waiter waiter, Result result) {
    complete(waiter, answer(waiter.session, waiter.requestId, result));
  }
}
