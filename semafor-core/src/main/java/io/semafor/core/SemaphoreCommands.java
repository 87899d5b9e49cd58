package io.semafor.core;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** {@code create}, {@code delete}, {@code set} and {@code increment}. */
final class SemaphoreCommands {
  private final Engine engine;

  SemaphoreCommands(Engine engine) {
    this.engine = engine;
  }

  Reply create(Session session, long requestId, Operation.Create op) {
    Result.Failure failure = checkCreate(op);
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore existing = engine.semaphores.get(op.name());
    if (existing != null) {
      return engine.answer(
          session, requestId, new Result.Created(false, existing.options(), existing.value));
    }
    if (engine.semaphores.size() >= engine.limits.maxSemaphores()) {
      return engine.answer(
          session,
          requestId,
          Check.exhausted(
              "maxSemaphores", engine.limits.maxSemaphores(), "cannot create " + op.name()));
    }
    SemaphoreOptions options = op.options();
    boolean slotted =
        options.hasCapacity() && options.capacity() <= engine.limits.maxSlottedCapacity();
    Name name = op.name();
    Semaphore created = new Semaphore(name.bytes(), name.hash(), op.initial(), options, slotted);
    engine.semaphores.add(created);
    engine.changed(created);
    return engine.answer(session, requestId, new Result.Created(true, options, op.initial()));
  }

  private Result.@Nullable Failure checkCreate(Operation.Create op) {
    Result.Failure failure = Check.name("name", op.name(), engine.limits.maxNameBytes());
    if (failure != null) {
      return failure;
    }
    if (op.initial() < 0) {
      return Check.invalid("initial", "must not be negative, was " + op.initial());
    }
    SemaphoreOptions options = op.options();
    if (options.capacity() < 0) {
      return Check.invalid(
          "capacity", "must be positive (or 0 for none), was " + options.capacity());
    }
    if (options.hasCapacity() && op.initial() > options.capacity()) {
      return Check.invalid("initial", op.initial() + " exceeds the capacity " + options.capacity());
    }
    if (options.maxPerSession() < 0) {
      return Check.invalid(
          "maxPerSession", "must be positive (or 0 for no limit), was " + options.maxPerSession());
    }
    return null;
  }

  /**
   * Deletes a semaphore: its waiters complete with DELETED in arrival order, WaitMany entries on it
   * report 0, and what sessions own, lease or have in transit on it is dropped
   * (docs/semantics.md#delete).
   */
  Reply delete(Session session, long requestId, Operation.Delete op) {
    Semaphore s = engine.semaphores.get(op.name());
    if (s == null) {
      return engine.answer(session, requestId, engine.noSemaphore(op.name()));
    }
    engine.changed(s);
    engine.semaphores.remove(s);
    s.markDeleted();
    for (Waiter w : waitersOf(s)) {
      if (w instanceof SingleWaiter single && single.entry != null) {
        engine.unqueue(single);
        single.entry.pending = null;
      } else {
        engine.complete(
            w,
            new Result.Failure(
                ErrorCode.DELETED, "name: " + s + " was deleted while this request waited"));
      }
    }
    HolderTable holders = s.holders;
    if (holders != null) {
      for (Holding h : holders.holdings.values()) {
        h.session.holdings.remove(s);
      }
      for (Lease lease : holders.leases.values()) {
        engine.leases.remove(lease.permitId);
        engine.emit(new Effect.CancelTimer(new TimerKey.LeaseEnd(lease.permitId)));
      }
      for (WaitManyEntry entry : holders.entries) {
        entry.deleted = true;
        entry.granted = 0;
        engine.ready(entry.list);
      }
    }
    s.queue = null;
    s.holders = null;
    return engine.answer(session, requestId, new Result.Deleted());
  }

  /** Every waiter with a node in {@code s}'s queue, each once, in arrival order. */
  static List<Waiter> waitersOf(Semaphore s) {
    List<Waiter> waiters = new ArrayList<>();
    WaiterQueue q = s.queue;
    if (q == null) {
      return waiters;
    }
    for (Node first : new Node[] {q.firstTaker(), q.firstWatcher(), q.firstZero()}) {
      for (Node n = first; n != null; n = n.next) {
        waiters.add(n.waiter());
      }
    }
    waiters.sort(Comparator.comparingLong(w -> w.seq));
    return waiters;
  }

  Reply set(Session session, long requestId, Operation.SetValue op) {
    if (op.value() < 0) {
      return engine.answer(
          session, requestId, Check.invalid("value", "must not be negative, was " + op.value()));
    }
    Semaphore s = engine.semaphores.get(op.name());
    if (s == null) {
      return engine.answer(session, requestId, engine.noSemaphore(op.name()));
    }
    if (op.value() > s.ceiling - s.outstanding) {
      return engine.answer(session, requestId, overflow("value", s, op.value(), "setting"));
    }
    long previous = s.value;
    s.value = op.value();
    engine.touch(s);
    return engine.answer(session, requestId, new Result.ValueSet(previous));
  }

  Reply increment(Session session, long requestId, Operation.Increment op) {
    Result.Failure failure = Check.positive("amount", op.amount());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = engine.semaphores.get(op.name());
    if (s == null) {
      return engine.answer(session, requestId, engine.noSemaphore(op.name()));
    }
    if (op.amount() > s.room()) {
      return engine.answer(session, requestId, overflow("amount", s, op.amount(), "adding"));
    }
    s.value += op.amount();
    engine.touch(s);
    return engine.answer(session, requestId, new Result.Incremented(s.value));
  }

  private static Result.Failure overflow(String argument, Semaphore s, long amount, String verb) {
    String ceiling = s.hasCapacity() ? "its capacity " + s.ceiling : "the maximum 2^63-1";
    return new Result.Failure(
        ErrorCode.OVERFLOW,
        argument
            + ": "
            + verb
            + " "
            + amount
            + " would take "
            + s
            + " (value "
            + s.value
            + ", "
            + s.outstanding
            + " owned, leased or in transit) past "
            + ceiling);
  }
}
