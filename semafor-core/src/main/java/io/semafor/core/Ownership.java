package io.semafor.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Moves owned permits between a semaphore and a session's {@link Holding}, keeping the semaphore's
 * {@code outstanding} equal to the positive part of every adjustment (plus leases and transfers)
 * and, on a slotted semaphore, one slot per owned permit.
 */
final class Ownership {
  private Ownership() {}

  /**
   * Records {@code amount} just taken from the semaphore as owned by the session. The value was
   * already lowered by the caller. Returns the slots the newly owned permits hold.
   */
  static List<Long> own(Session session, Semaphore semaphore, long amount) {
    Holding h = session.holding(semaphore);
    long before = h.owned();
    h.adjustment += amount;
    long gained = h.owned() - before;
    semaphore.outstanding += gained;
    HolderTable table = semaphore.holders();
    table.ownedChanged(before, h.owned());
    if (!semaphore.slotted() || gained == 0) {
      return List.of();
    }
    List<Long> slots = new ArrayList<>((int) gained);
    for (long i = 0; i < gained; i++) {
      long slot = table.takeLowestFreeSlot();
      h.pushSlot(slot);
      slots.add(slot);
    }
    return slots;
  }

  /**
   * Lowers the adjustment by {@code amount} (a release, or an owned add of a {@code semop}),
   * freeing the most recently taken slots of the permits no longer owned. The caller raises the
   * value.
   */
  static void disown(Holding h, long amount) {
    long before = h.owned();
    h.adjustment -= amount;
    long lost = before - h.owned();
    h.semaphore.outstanding -= lost;
    HolderTable table = h.semaphore.holders();
    table.ownedChanged(before, h.owned());
    if (h.semaphore.slotted()) {
      for (long i = 0; i < lost; i++) {
        table.freeSlot(h.popSlot());
      }
    }
  }

  /** Gives back the one owned permit holding {@code slot}, raising the value by 1. */
  static void releaseSlot(Holding h, long slot) {
    h.removeSlot(slot);
    long before = h.owned();
    h.adjustment -= 1;
    h.semaphore.outstanding -= 1;
    h.semaphore.value += 1;
    HolderTable table = h.semaphore.holders();
    table.ownedChanged(before, h.owned());
    table.freeSlot(slot);
  }

  /**
   * Applies the adjustment when the session ends (SysV undo): owned permits go back, a negative
   * adjustment takes back what it can without going below 0.
   */
  static void undo(Holding h) {
    Semaphore s = h.semaphore;
    long adjustment = h.adjustment;
    if (adjustment > 0) {
      disown(h, adjustment);
      s.value += adjustment;
    } else if (adjustment < 0) {
      s.value = Math.max(0, s.value + adjustment);
      h.adjustment = 0;
    }
  }
}
