package io.semafor.core;

import io.semafor.ErrorCode;
import org.jspecify.annotations.Nullable;

/** {@code renew}, {@code releaseLease}, {@code ExpireLease}, and the end of a lease. */
final class LeaseCommands {
  private final Engine engine;

  LeaseCommands(Engine engine) {
    this.engine = engine;
  }

  Reply renew(Session session, long requestId, Operation.RenewLease op) {
    Result.Failure failure = Check.positive("ttl", op.ttl());
    if (failure != null) {
      return engine.answer(session, requestId, failure);
    }
    Lease lease = onNamed(engine.leases.get(op.permitId()), op.name());
    if (lease == null) {
      return engine.answer(
          session,
          requestId,
          new Result.Failure(
              ErrorCode.NOT_FOUND,
              "permitId: no lease "
                  + op.permitId()
                  + " (it expired, was released or never existed)"));
    }
    Result.Failure refused = another(session, requestId, lease, "renew", op.takerOnly());
    if (refused != null) {
      return engine.answer(session, requestId, refused);
    }
    lease.expiresAt = engine.deadline(op.ttl());
    engine.changed(lease.semaphore);
    engine.emit(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.permitId), lease.expiresAt));
    return engine.answer(session, requestId, new Result.LeaseRenewed(lease.expiresAt));
  }

  /**
   * Idempotent: says whether there was a lease to release. From any session, or with {@code
   * takerOnly} from a session of the principal that took it.
   */
  Reply release(Session session, long requestId, Operation.ReleaseLease op) {
    Lease lease = onNamed(engine.leases.get(op.permitId()), op.name());
    if (lease != null) {
      Result.Failure refused = another(session, requestId, lease, "release", op.takerOnly());
      if (refused != null) {
        return engine.answer(session, requestId, refused);
      }
      end(lease);
    }
    return engine.answer(session, requestId, new Result.LeaseReleased(lease != null));
  }

  /**
   * When {@code session}'s principal is not the one that took {@code lease}: the refusal if {@code
   * takerOnly}, and in either case an effect telling the edge to audit it (decision 0047). Null
   * when the request may go on.
   */
  private Result.@Nullable Failure another(
      Session session, long requestId, Lease lease, String verb, boolean takerOnly) {
    String by = session.owner.principal();
    if (by.equals(lease.principal)) {
      return null;
    }
    Name name = Name.wrap(lease.semaphore.name);
    String refused =
        takerOnly
            ? "permission 'release' on "
                + name
                + " is needed to "
                + verb
                + " a lease another principal took; "
                + (by.isEmpty() ? "anonymous" : by)
                + " does not have it"
            : null;
    engine.emit(
        new Effect.LeaseOfAnother(
            session.id,
            requestId,
            verb + " lease " + Long.toUnsignedString(lease.permitId) + " on " + name,
            lease.principal,
            refused));
    return refused == null ? null : new Result.Failure(ErrorCode.PERMISSION_DENIED, refused);
  }

  /** {@code lease} if it is on the semaphore named {@code name} (or no name was given). */
  private static @Nullable Lease onNamed(@Nullable Lease lease, @Nullable Name name) {
    return lease == null || name == null || Name.wrap(lease.semaphore.name).equals(name)
        ? lease
        : null;
  }

  /** Ends a lease whose end has come in log time; a renewed lease is re-armed instead. */
  Result expire(Command.ExpireLease command) {
    Lease lease = engine.leases.get(command.permitId());
    if (lease == null) {
      return new Result.Expiry(false);
    }
    if (engine.now < lease.expiresAt) {
      engine.emit(new Effect.ArmTimer(new TimerKey.LeaseEnd(lease.permitId), lease.expiresAt));
      return new Result.Expiry(false);
    }
    end(lease);
    return new Result.Expiry(true);
  }

  /** Gives a lease's permits and slots back to its semaphore. */
  void end(Lease lease) {
    Semaphore s = lease.semaphore;
    engine.leases.remove(lease.permitId);
    HolderTable table = s.holders();
    table.removeLease(lease);
    for (long slot : lease.slots) {
      table.freeSlot(slot);
    }
    s.outstanding -= lease.amount;
    s.value += lease.amount;
    lease.undeliveredTo = null;
    engine.emit(new Effect.CancelTimer(new TimerKey.LeaseEnd(lease.permitId)));
    engine.touch(s);
    s.compact();
  }
}
