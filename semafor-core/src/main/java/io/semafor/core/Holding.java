package io.semafor.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one session holds on one semaphore: its signed SysV adjustment (positive: owned permits that
 * go back when the session ends; negative: what an owned add will take back), the owned amount it
 * still waits for (counted by {@code maxPerSession}), and the slots its owned permits hold, most
 * recent last.
 */
final class Holding {
  private static final long[] NO_SLOTS = new long[0];

  final Session session;
  final Semaphore semaphore;
  long adjustment;
  long pendingOwned;
  private long[] slots = NO_SLOTS;
  private int slotCount;

  Holding(Session session, Semaphore semaphore) {
    this.session = session;
    this.semaphore = semaphore;
  }

  /** Owned permits: the positive part of the adjustment. */
  long owned() {
    return Math.max(adjustment, 0);
  }

  boolean isEmpty() {
    return adjustment == 0 && pendingOwned == 0;
  }

  /** How many slots its owned permits hold. */
  int slotCount() {
    return slotCount;
  }

  void pushSlot(long slot) {
    if (slotCount == slots.length) {
      slots = Arrays.copyOf(slots, Math.max(4, slotCount * 2));
    }
    slots[slotCount++] = slot;
  }

  long popSlot() {
    return slots[--slotCount];
  }

  boolean holdsSlot(long slot) {
    for (int i = 0; i < slotCount; i++) {
      if (slots[i] == slot) {
        return true;
      }
    }
    return false;
  }

  void removeSlot(long slot) {
    for (int i = 0; i < slotCount; i++) {
      if (slots[i] == slot) {
        System.arraycopy(slots, i + 1, slots, i, slotCount - i - 1);
        slotCount--;
        return;
      }
    }
    throw new IllegalStateException("slot " + slot + " not held");
  }

  List<Long> slots() {
    List<Long> out = new ArrayList<>(slotCount);
    for (int i = 0; i < slotCount; i++) {
      out.add(slots[i]);
    }
    return out;
  }
}
