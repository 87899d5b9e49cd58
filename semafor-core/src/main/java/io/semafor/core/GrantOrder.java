package io.semafor.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/*
 * Overview
 *
 * docs/semantics.md#arrival-order: after any change, the lowest-sequence waiter that can be served
 * is served, repeatedly, across every affected semaphore. Evaluating every waiter after every
 * change would be O(waiters); this class gets the same answer by looking only where an answer can
 * be.
 *
 * Between commands nothing is servable (every command ends by settling). A waiter's verdict
 * depends only on the values of the semaphores it names and on whether it is held back on them, so
 * it can change only if one of those semaphores was "touched": its value changed or a waiter left
 * its queue. Each touched semaphore offers its own lowest servable waiter (its candidate); the
 * lowest candidate overall is served; that touches more semaphores; repeat.
 *
 * A semaphore's candidate is cheap to find. Under FIFO every taker after the blocker (the earliest
 * all-or-nothing taker) is held back, and the takers before it are partial decrements, servable
 * exactly when the value is positive. So the candidate is the head if it is partial and the value
 * is positive, else the blocker if it can be served: O(1), which is what makes a grant O(1)
 * however long the queue. A held-back waiter is not evaluated at all (SemopPlan.evaluate), which
 * is what keeps this exact. BARGING scans its takers; semops that only add or wait for zero here
 * ("watchers") are checked in order. Plain awaitZero waiters are released together whenever a
 * touched semaphore is at 0.
 *
 * Slices (docs/decisions/0019-grants-in-slices.md). One command serves at most
 * Limits.grantsPerCommand waiters; if more can be served, the touched list is kept, pruned to
 * exactly the semaphores that have a servable candidate (a function of the state: a replica
 * restored from a snapshot computes the same set), and the edge proposes ContinueGrants, which
 * serves the next slice after whatever else was queued. Between slices the invariant above
 * becomes "nothing is servable except on the pending semaphores". A later command that could see
 * or change what the pending waiters get (one naming a pending semaphore, or a semaphore a queued
 * semop spans, or one that withdraws, reports or times out waiters) first completes the hand-out,
 * so every grant is exactly what it would have been in one step; commands on other semaphores go
 * straight through, which is the point.
 */

/** Decides which waiters are served, in arrival order, and serves them. */
final class GrantOrder {
  private static final Comparator<Waiter> BY_SEQ = Comparator.comparingLong(w -> w.seq);

  private final Engine engine;
  private final Grants grants;

  /**
   * How many times a queued waiter was evaluated, ever: the work grant order does, which tests hold
   * constant per grant whatever the queue length.
   */
  private long evaluations;

  GrantOrder(Engine engine, Grants grants) {
    this.engine = engine;
    this.grants = grants;
  }

  /**
   * Serves waiters that can now be served, lowest arrival sequence first, at most {@code budget} of
   * them. Returns true if nothing more can be served; otherwise the touched list holds exactly the
   * semaphores with a servable waiter (see the overview).
   */
  boolean settle(int budget) {
    List<Semaphore> touched = engine.touched();
    releaseZeros(touched);
    int served = 0;
    while (true) {
      if (served == budget) {
        prune(touched);
        return touched.isEmpty();
      }
      Waiter best = null;
      for (int i = 0; i < touched.size(); ) {
        Semaphore s = touched.get(i);
        Waiter candidate = s.deleted() ? null : candidate(s);
        if (candidate == null) {
          s.setTouched(false);
          touched.set(i, touched.get(touched.size() - 1));
          touched.remove(touched.size() - 1);
          continue;
        }
        if (best == null || candidate.seq < best.seq) {
          best = candidate;
        }
        i++;
      }
      if (best == null) {
        return true;
      }
      serve(best);
      served++;
      releaseZeros(touched);
    }
  }

  /** Keeps pending only the semaphores that have a servable waiter. */
  void keepOnlyServable() {
    prune(engine.touched());
  }

  /** Keeps in {@code touched} only the semaphores that have a servable waiter. */
  private void prune(List<Semaphore> touched) {
    for (int i = 0; i < touched.size(); ) {
      Semaphore s = touched.get(i);
      if (!s.deleted() && candidate(s) != null) {
        i++;
        continue;
      }
      s.setTouched(false);
      touched.set(i, touched.get(touched.size() - 1));
      touched.remove(touched.size() - 1);
    }
  }

  /** Whether grants are pending from an earlier command (the touched list outlived it). */
  boolean pending() {
    return !engine.touched().isEmpty();
  }

  /**
   * After a restore: the semaphores with a servable waiter are pending again, exactly as on a
   * replica that was never restored.
   */
  void resumePending() {
    engine.semaphores.forEachInRunOrder(engine::touch);
    prune(engine.touched());
  }

  /**
   * Whether {@code command}, applied while grants are pending, must first complete them: it names a
   * pending semaphore or one a queued {@code semop} spans (its outcome, or theirs, could depend on
   * grants not yet made), or it withdraws, reports or times out waiters, or spans semaphores.
   */
  boolean mustCompleteFirst(Command command) {
    if (command instanceof Command.Request request) {
      Operation op = request.operation();
      if (op instanceof Operation.Semop
          || op instanceof Operation.WaitMany
          || op instanceof Operation.AddToWaitMany
          || op instanceof Operation.RemoveFromWaitMany
          || op instanceof Operation.Cancel
          || op instanceof Operation.CloseSession
          || op instanceof Operation.EndSession) {
        return true;
      }
      if (op instanceof Operation.RenewLease renew) {
        return pendingOnLease(renew.permitId());
      }
      if (op instanceof Operation.ReleaseLease release) {
        return pendingOnLease(release.permitId());
      }
      Name name = nameOf(op);
      return name != null && pendingOn(engine.semaphores.get(name));
    }
    if (command instanceof Command.ExpireLease expire) {
      return pendingOnLease(expire.permitId());
    }
    return command instanceof Command.ExpireWaiter
        || command instanceof Command.RefuseWaiter
        || command instanceof Command.ExpireSession;
  }

  private boolean pendingOnLease(long permitId) {
    Lease lease = engine.leases.get(permitId);
    return lease != null && pendingOn(lease.semaphore);
  }

  private static boolean pendingOn(@Nullable Semaphore s) {
    if (s == null) {
      return false;
    }
    WaiterQueue q = s.queue;
    return s.touched() || (q != null && (q.semopTakers() > 0 || q.firstWatcher() != null));
  }

  private static @Nullable Name nameOf(Operation op) {
    // Create changes nothing of an existing semaphore
    return op instanceof Operation.OnOneSemaphore one && !(op instanceof Operation.Create)
        ? one.name()
        : null;
  }

  /** Forgets the touched set once nothing more can be served. */
  void clearTouched() {
    for (Semaphore s : engine.touched()) {
      s.setTouched(false);
    }
    engine.touched().clear();
  }

  long evaluations() {
    return evaluations;
  }

  private Verdict evaluate(Waiter w) {
    evaluations++;
    return verdict(w);
  }

  /** Whether a waiter can be served now, is blocked, or must fail. */
  static Verdict verdict(Waiter w) {
    if (w instanceof SingleWaiter single) {
      Semaphore s = single.semaphore;
      if (single.kind == SingleWaiter.AWAIT_ZERO) {
        return s.value == 0 ? Verdict.SERVABLE : Verdict.BLOCKED;
      }
      if (s.holdsBack(single.seq)) {
        return Verdict.BLOCKED;
      }
      boolean fits = single.partial() ? s.value > 0 : s.value >= single.requested;
      return fits ? Verdict.SERVABLE : Verdict.BLOCKED;
    }
    if (w instanceof SemopWaiter semop) {
      return semop.plan.evaluate(semop.session, semop.seq);
    }
    throw new IllegalStateException("not a queued waiter: " + w.kind());
  }

  private @Nullable Waiter candidate(Semaphore s) {
    WaiterQueue q = s.queue;
    if (q == null) {
      return null;
    }
    Waiter found = null;
    if (s.fifo()) {
      Node head = q.firstTaker();
      if (head != null) {
        if (s.value > 0 && head.role() == Node.TAKE_PARTIAL) {
          found = head.waiter();
        } else {
          Node blocker = q.blocker();
          if (blocker != null && !evaluate(blocker.waiter()).blocked()) {
            found = blocker.waiter();
          }
        }
      }
    } else if (s.value > 0 || q.semopTakers() > 0) {
      for (Node n = q.firstTaker(); n != null; n = n.next) {
        if (!evaluate(n.waiter()).blocked()) {
          found = n.waiter();
          break;
        }
      }
    }
    for (Node n = q.firstWatcher(); n != null; n = n.next) {
      Waiter w = n.waiter();
      if (found != null && w.seq > found.seq) {
        break;
      }
      if (!evaluate(w).blocked()) {
        found = w;
        break;
      }
    }
    return found;
  }

  private void serve(Waiter w) {
    Verdict verdict = evaluate(w);
    if (w instanceof SingleWaiter single) {
      Semaphore s = single.semaphore;
      long amount = single.partial() ? Math.min(s.value, single.requested) : single.requested;
      switch (single.kind) {
        case SingleWaiter.WAIT_MANY_ENTRY -> {
          WaitManyEntry entry = single.entry;
          if (entry == null) {
            throw new IllegalStateException("WaitMany waiter without an entry");
          }
          engine.unqueue(single);
          entry.pending = null;
          grants.grantEntry(entry, amount);
        }
        case SingleWaiter.LEASE ->
            engine.complete(
                single,
                grants.lease(
                    single.session, single.requestId, single.seq, s, amount, single.leaseTtl));
        default ->
            engine.complete(
                single,
                grants.take(single.session, single.requestId, single.seq, s, amount, single.owned));
      }
    } else if (w instanceof SemopWaiter semop) {
      Result.Failure failure = verdict.failure;
      engine.complete(
          semop,
          failure != null
              ? engine.answer(semop.session, semop.requestId, failure)
              : grants.semop(semop.session, semop.requestId, semop.seq, semop.plan));
    } else {
      throw new IllegalStateException("not a queued waiter: " + w.kind());
    }
  }

  /** Releases, in arrival order, the plain wait-for-zero waiters of touched semaphores at 0. */
  private void releaseZeros(List<Semaphore> touched) {
    List<Waiter> released = null;
    for (int i = 0; i < touched.size(); i++) {
      Semaphore s = touched.get(i);
      WaiterQueue q = s.queue;
      if (s.value != 0 || q == null) {
        continue;
      }
      for (Node n = q.firstZero(); n != null; n = n.next) {
        if (released == null) {
          released = new ArrayList<>();
        }
        released.add(n.waiter());
      }
    }
    if (released == null) {
      return;
    }
    released.sort(BY_SEQ);
    for (Waiter w : released) {
      engine.complete(w, new Result.ZeroReached(true, w.seq));
    }
  }
}
