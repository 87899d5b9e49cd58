package io.semafor.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Reads of the state: {@code get}, {@code inspect}, {@code list}. They change nothing. */
final class Queries {
  /** The most names one {@code list} answers with; ask again with {@code after} for more. */
  static final int MAX_LIST = 10_000;

  private final Engine engine;

  Queries(Engine engine) {
    this.engine = engine;
  }

  Result get(Query.Get q) {
    Semaphore s = engine.semaphores.get(q.name());
    return s == null ? engine.noSemaphore(q.name()) : status(s);
  }

  static Result.SemaphoreStatus status(Semaphore s) {
    long owned = 0;
    long leased = 0;
    int holders = 0;
    HolderTable table = s.holders;
    if (table != null) {
      for (Holding h : table.holdings.values()) {
        owned += h.owned();
        holders += h.owned() > 0 ? 1 : 0;
      }
      for (Lease lease : table.leases.values()) {
        leased += lease.amount;
      }
    }
    return new Result.SemaphoreStatus(
        s.name(),
        s.value,
        s.options(),
        s.waiterCount(),
        holders,
        owned,
        leased,
        s.outstanding - owned - leased);
  }

  Result inspect(Query.Inspect q) {
    Semaphore s = engine.semaphores.get(q.name());
    if (s == null) {
      return engine.noSemaphore(q.name());
    }
    List<Result.WaiterView> queue = new ArrayList<>();
    for (Waiter w : SemaphoreCommands.waitersOf(s)) {
      long deadline = w.deadline == Waiter.NO_DEADLINE ? -1 : w.deadline;
      queue.add(
          new Result.WaiterView(
              w.session.id, w.requestId, w.seq, w.kind(), amountOn(w, s), deadline));
    }
    List<Result.HolderView> holders = new ArrayList<>();
    List<Result.LeaseView> leases = new ArrayList<>();
    HolderTable table = s.holders;
    if (table != null) {
      for (Holding h : table.holdings.values()) {
        if (h.adjustment != 0) {
          holders.add(new Result.HolderView(h.session.id, h.adjustment, h.slots()));
        }
      }
      for (Lease lease : table.leases.values()) {
        Session to = lease.undeliveredTo;
        leases.add(
            new Result.LeaseView(
                lease.permitId,
                to == null ? 0 : to.id,
                lease.amount,
                Grants.boxed(lease.slots),
                lease.token,
                lease.grantedAt,
                lease.expiresAt));
      }
    }
    holders.sort(Comparator.comparingLong(Result.HolderView::sessionId));
    leases.sort(Comparator.comparingLong(Result.LeaseView::permitId));
    return new Result.SemaphoreDetail(status(s), queue, holders, leases);
  }

  /**
   * What a waiter asks of this semaphore: its amount, or for a semop the sum of its deltas here.
   */
  private static long amountOn(Waiter w, Semaphore s) {
    if (w instanceof SemopWaiter semop) {
      long sum = 0;
      for (int i = 0; i < semop.plan.size(); i++) {
        if (semop.plan.semaphores[i].equals(s)) {
          sum += semop.plan.deltas[i];
        }
      }
      return sum;
    }
    return w.amount();
  }

  Result list(Query.ListNames q) {
    if (q.limit() < 1 || q.limit() > MAX_LIST) {
      return Check.invalid("limit", "must be 1.." + MAX_LIST + ", was " + q.limit());
    }
    Name after = q.after();
    List<Name> names = new ArrayList<>();
    engine.semaphores.forEachInRunOrder(
        s -> {
          Name name = s.name();
          if (name.startsWith(q.prefix()) && (after == null || name.compareTo(after) > 0)) {
            names.add(name);
          }
        });
    names.sort(Comparator.naturalOrder());
    return new Result.NameList(names.subList(0, Math.min(q.limit(), names.size())));
  }
}
