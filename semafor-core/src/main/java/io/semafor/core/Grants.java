package io.semafor.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Performs grants: takes permits from semaphores and hands them to a session's holding, a lease, a
 * WaitMany entry, or a reply in transit, issuing each grant its fencing token. Deciding
 * <em>whether</em> and <em>when</em> is {@link GrantOrder}'s job; this only carries it out.
 */
final class Grants {
  private final Engine engine;

  Grants(Engine engine) {
    this.engine = engine;
  }

  /**
   * Takes {@code amount} for a {@code decrement} or {@code acquire}, owned or in transit, and
   * records the reply.
   */
  Reply take(
      Session session, long requestId, long seq, Semaphore semaphore, long amount, boolean owned) {
    long token = engine.nextToken();
    semaphore.value -= amount;
    engine.touch(semaphore);
    if (owned) {
      List<Long> slots = Ownership.own(session, semaphore, amount);
      return engine.answer(session, requestId, new Result.Granted(amount, token, seq, slots));
    }
    semaphore.outstanding += amount;
    return engine.answer(
        session, requestId, new Result.Granted(amount, token, seq, List.of()), semaphore, amount);
  }

  /** Takes {@code amount} as a lease ending {@code ttl} from now, and records the reply. */
  Reply lease(
      Session session, long requestId, long seq, Semaphore semaphore, long amount, long ttl) {
    long token = engine.nextToken();
    long permitId = engine.nextPermitId();
    semaphore.value -= amount;
    semaphore.outstanding += amount;
    engine.touch(semaphore);
    HolderTable table = semaphore.holders();
    long[] slots = new long[semaphore.slotted() ? Math.toIntExact(amount) : 0];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = table.takeLowestFreeSlot();
    }
    long expiresAt = engine.deadline(ttl);
    Lease lease =
        new Lease(
            permitId,
            semaphore,
            amount,
            slots,
            token,
            seq,
            engine.now,
            expiresAt,
            session,
            session.owner.principal());
    engine.leases.put(permitId, lease);
    table.addLease(lease);
    engine.emit(new Effect.ArmTimer(new TimerKey.LeaseEnd(permitId), expiresAt));
    Result result = new Result.LeaseGranted(permitId, amount, token, seq, boxed(slots), expiresAt);
    return engine.answer(session, requestId, result, lease);
  }

  /** Adds {@code amount} to a WaitMany entry's unreported grant. */
  void grantEntry(WaitManyEntry entry, long amount) {
    Semaphore s = entry.semaphore;
    s.value -= amount;
    s.outstanding += amount;
    entry.granted += amount;
    entry.token = engine.nextToken();
    engine.touch(s);
    engine.ready(entry.list);
  }

  /** Applies every op of a servable {@code semop} and records the reply. */
  Reply semop(Session session, long requestId, long seq, SemopPlan plan) {
    long token = engine.nextToken();
    int n = plan.distinct.length;
    long[] inTransit = new long[n];
    List<List<Long>> slots = new ArrayList<>(plan.size());
    for (int i = 0; i < plan.size(); i++) {
      Semaphore s = plan.semaphores[i];
      long delta = plan.deltas[i];
      List<Long> opSlots = List.of();
      if (delta < 0) {
        s.value += delta;
        if (plan.owned[i]) {
          opSlots = Ownership.own(session, s, -delta);
        } else {
          s.outstanding -= delta;
          inTransit[plan.distinctOf[i]] -= delta;
        }
      } else if (delta > 0) {
        if (plan.owned[i]) {
          Holding h = session.holding(s);
          Ownership.disown(h, delta);
          session.dropIfEmpty(h);
        }
        s.value += delta;
      }
      slots.add(opSlots);
    }
    int moving = 0;
    for (long amount : inTransit) {
      moving += amount > 0 ? 1 : 0;
    }
    Semaphore[] semaphores = new Semaphore[moving];
    long[] amounts = new long[moving];
    for (int d = 0, k = 0; d < n; d++) {
      if (inTransit[d] > 0) {
        semaphores[k] = plan.distinct[d];
        amounts[k++] = inTransit[d];
      }
      engine.touch(plan.distinct[d]);
    }
    Result result = new Result.SemopDone(true, token, seq, slots);
    return engine.answer(session, requestId, result, semaphores, amounts);
  }

  static List<Long> boxed(long[] values) {
    List<Long> out = new ArrayList<>(values.length);
    for (long v : values) {
      out.add(v);
    }
    return out;
  }
}
