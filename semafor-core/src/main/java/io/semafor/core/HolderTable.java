package io.semafor.core;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import org.jspecify.annotations.Nullable;

/**
 * Who holds what on one semaphore: session holdings, leases, WaitMany entries (pending or granted
 * but unreported), and, on a slotted semaphore, which slot numbers are taken. Exists only while
 * something is held.
 */
final class HolderTable {
  final LinkedHashMap<Session, Holding> holdings = new LinkedHashMap<>();
  final LinkedHashMap<Long, Lease> leases = new LinkedHashMap<>();
  final LinkedHashSet<WaitManyEntry> entries = new LinkedHashSet<>();
  private final @Nullable BitSet usedSlots;

  HolderTable(boolean slotted) {
    this.usedSlots = slotted ? new BitSet() : null;
  }

  boolean isEmpty() {
    return holdings.isEmpty() && leases.isEmpty() && entries.isEmpty();
  }

  /**
   * Takes the lowest free slot. The capacity invariant guarantees one is free within 1..capacity
   * whenever a permit is granted.
   */
  long takeLowestFreeSlot() {
    BitSet used = slots();
    int slot = used.nextClearBit(1);
    used.set(slot);
    return slot;
  }

  void freeSlot(long slot) {
    slots().clear(Math.toIntExact(slot));
  }

  /** Marks a slot taken when restoring a snapshot. */
  void markSlot(long slot) {
    slots().set(Math.toIntExact(slot));
  }

  private BitSet slots() {
    BitSet used = usedSlots;
    if (used == null) {
      throw new IllegalStateException("a semaphore without capacity has no slots");
    }
    return used;
  }
}
