package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * The operations that may wait: {@code decrement}, {@code acquire}, {@code acquireLease}, {@code
 * awaitZero}, {@code semop}; and the end of a wait: {@code cancel} and {@code ExpireWaiter}.
 *
 * <p>An arriving request is judged exactly as a queued one (docs/semantics.md#arrival-order): under
 * FIFO it is held back by any queued all-or-nothing taker on a semaphore it takes from, even with
 * timeout 0. Each handler returns the reply, or null when the request now waits.
 */
final class WaitingCommands {
  /** Sequence number larger than any queued waiter's: arriving requests are judged as last. */
  private static final long ARRIVING = Long.MAX_VALUE;

  private final Engine engine;
  private final Grants grants;

  WaitingCommands(Engine engine, Grants grants) {
    this.engine = engine;
    this.grants = grants;
  }

  @Nullable Reply decrement(Session session, long requestId, Operation.Decrement op) {
    Result.Failure failure =
        first(Check.positive("amount", op.amount()), Check.timeout(op.timeout()));
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = find(op.name());
    if (s == null) {
      return missing(session, requestId, op.name());
    }
    failure = op.owned() ? Check.perSession("amount", session, s, op.amount()) : null;
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    return single(
        session, requestId, s, SingleWaiter.DECREMENT, op.amount(), op.owned(), 0, op.timeout());
  }

  @Nullable Reply acquire(Session session, long requestId, Operation.Acquire op) {
    Result.Failure failure =
        first(Check.positive("amount", op.amount()), Check.timeout(op.timeout()));
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = find(op.name());
    if (s == null) {
      return missing(session, requestId, op.name());
    }
    failure =
        first(
            Check.withinCapacity("amount", s, op.amount()),
            op.owned() ? Check.perSession("amount", session, s, op.amount()) : null);
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    return single(
        session, requestId, s, SingleWaiter.ACQUIRE, op.amount(), op.owned(), 0, op.timeout());
  }

  @Nullable Reply acquireLease(Session session, long requestId, Operation.AcquireLease op) {
    Result.Failure failure =
        first(
            Check.positive("amount", op.amount()),
            first(Check.positive("leaseTtl", op.leaseTtl()), Check.timeout(op.timeout())));
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = find(op.name());
    if (s == null) {
      return missing(session, requestId, op.name());
    }
    failure = Check.withinCapacity("amount", s, op.amount());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    return single(
        session, requestId, s, SingleWaiter.LEASE, op.amount(), false, op.leaseTtl(), op.timeout());
  }

  @Nullable Reply awaitZero(Session session, long requestId, Operation.AwaitZero op) {
    Result.Failure failure = Check.timeout(op.timeout());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Semaphore s = find(op.name());
    if (s == null) {
      return missing(session, requestId, op.name());
    }
    return single(session, requestId, s, SingleWaiter.AWAIT_ZERO, 0, false, 0, op.timeout());
  }

  private @Nullable Reply single(
      Session session,
      long requestId,
      Semaphore s,
      byte kind,
      long amount,
      boolean owned,
      long leaseTtl,
      long timeout) {
    boolean servable =
        switch (kind) {
          case SingleWaiter.AWAIT_ZERO -> s.value == 0;
          case SingleWaiter.DECREMENT -> s.value > 0 && !s.holdsBack(ARRIVING);
          default -> s.value >= amount && !s.holdsBack(ARRIVING);
        };
    if (servable) {
      long seq = engine.nextSeq();
      return switch (kind) {
        case SingleWaiter.AWAIT_ZERO ->
            engine.answer(session, requestId, new Result.ZeroReached(true, seq));
        case SingleWaiter.LEASE -> grants.lease(session, requestId, seq, s, amount, leaseTtl);
        case SingleWaiter.DECREMENT ->
            grants.take(session, requestId, seq, s, Math.min(s.value, amount), owned);
        default -> grants.take(session, requestId, seq, s, amount, owned);
      };
    }
    if (timeout == 0) {
      return engine.answer(session, requestId, SingleWaiter.notDone(kind, engine.nextSeq()));
    }
    Result.Failure full = engine.roomToWait(session);
    if (full != null) {
      return engine.answer(session, requestId, full);
    }
    engine.enqueue(
        new SingleWaiter(
            session,
            requestId,
            engine.nextSeq(),
            engine.deadline(timeout),
            s,
            kind,
            amount,
            owned,
            leaseTtl,
            null));
    return null;
  }

  @Nullable Reply semop(Session session, long requestId, Operation.Semop op) {
    Object planned = plan(session, op);
    if (planned instanceof Result.Failure failure) {
      return engine.answer(session, requestId, failure);
    }
    SemopPlan plan = (SemopPlan) planned;
    Verdict verdict = plan.evaluate(session, ARRIVING);
    Result.Failure failure = verdict.failure;
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    if (verdict.servable()) {
      return grants.semop(session, requestId, engine.nextSeq(), plan);
    }
    if (op.timeout() == 0) {
      return engine.answer(
          session,
          requestId,
          new SemopWaiter(session, requestId, engine.nextSeq(), 0, plan).notDone());
    }
    Result.Failure full = engine.roomToWait(session);
    if (full != null) {
      return engine.answer(session, requestId, full);
    }
    engine.enqueue(
        new SemopWaiter(session, requestId, engine.nextSeq(), engine.deadline(op.timeout()), plan));
    return null;
  }

  /** Checks a {@code semop} and resolves its names: a {@link SemopPlan} or a failure. */
  private Object plan(Session session, Operation.Semop op) {
    int count = op.ops().size();
    if (count == 0) {
      return Check.invalid("ops", "must hold at least one operation");
    }
    if (count > engine.limits.maxSemopOps()) {
      return Check.exhausted(
          "maxSemopOps", engine.limits.maxSemopOps(), "the semop has " + count + " operations");
    }
    Result.Failure failure = Check.timeout(op.timeout());
    if (failure != null) {
      return failure;
    }
    Semaphore[] semaphores = new Semaphore[count];
    long[] deltas = new long[count];
    boolean[] noWait = new boolean[count];
    boolean[] owned = new boolean[count];
    for (int i = 0; i < count; i++) {
      SemopOp o = op.ops().get(i);
      String at = "ops[" + i + "]";
      if (o.delta() == Long.MIN_VALUE) {
        return Check.invalid(at + ".delta", "must be greater than -2^63");
      }
      Semaphore s = find(o.name());
      if (s == null) {
        return Check.missing(at + ".name", o.name(), engine.limits.maxNameBytes());
      }
      failure = o.delta() < 0 ? Check.withinCapacity(at + ".delta", s, -o.delta()) : null;
      if (failure != null) {
        return failure;
      }
      semaphores[i] = s;
      deltas[i] = o.delta();
      noWait[i] = o.noWait();
      owned[i] = o.owned();
    }
    SemopPlan plan = new SemopPlan(semaphores, deltas, noWait, owned);
    for (int d = 0; d < plan.distinct.length; d++) {
      failure = Check.perSession("ops", session, plan.distinct[d], plan.ownedTakes(d));
      if (failure != null) {
        return failure;
      }
    }
    return plan;
  }

  /** Withdraws a waiting request of this session; it completes as not done. */
  Reply cancel(Session session, long requestId, Operation.Cancel op) {
    Object target = session.requests.get(op.requestId());
    boolean cancelled = target instanceof Waiter;
    if (target instanceof Waiter w) {
      engine.complete(w, w.notDone());
    }
    return engine.answer(session, requestId, new Result.Cancelled(cancelled));
  }

  /** Refuses a waiting request, withdrawn as a cancel withdraws it (decision 0047). */
  Result refuse(Command.RefuseWaiter command) {
    Session session = engine.session(command.sessionId());
    Object target = session == null ? null : session.requests.get(command.requestId());
    if (!(target instanceof Waiter w)) {
      return new Result.Expiry(false);
    }
    engine.complete(w, new Result.Failure(command.code(), command.message()));
    return new Result.Expiry(true);
  }

  /** Times out a waiter whose deadline has come in log time; never earlier. */
  Result expire(Command.ExpireWaiter command) {
    Session session = engine.session(command.sessionId());
    Object target = session == null ? null : session.requests.get(command.requestId());
    if (!(target instanceof Waiter w)) {
      return new Result.Expiry(false);
    }
    if (engine.now < w.deadline) {
      engine.emit(
          new Effect.ArmTimer(
              new TimerKey.WaiterTimeout(command.sessionId(), command.requestId()), w.deadline));
      return new Result.Expiry(false);
    }
    engine.complete(w, w.notDone());
    return new Result.Expiry(true);
  }

  private @Nullable Semaphore find(Name name) {
    return engine.semaphores.get(name);
  }

  private static Result.@Nullable Failure first(
      Result.@Nullable Failure a, Result.@Nullable Failure b) {
    return a != null ? a : b;
  }

  private Reply missing(Session session, long requestId, Name name) {
    return engine.answer(session, requestId, engine.noSemaphore(name));
  }
}
