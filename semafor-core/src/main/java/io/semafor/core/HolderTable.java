package io.semafor.core;

import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Who holds what on one semaphore: session holdings, leases, WaitMany entries (pending or granted
 * but unreported), and, on a slotted semaphore, which slot numbers are taken. Exists only while
 * something is held.
 *
 * <p>Holdings are sorted by session id and leases by permit id, so that {@code inspect} can page
 * through either from any key in O(log n) per page; the running totals let {@code get} and every
 * inspection page answer without a scan.
 */
final class HolderTable {
  final TreeMap<Long, Holding> holdings = new TreeMap<>();
  final TreeMap<Long, Lease> leases = new TreeMap<>();
  final LinkedHashSet<WaitManyEntry> entries = new LinkedHashSet<>();
  private final @Nullable BitSet usedSlots;

  /** The sum of every holding's owned permits (the positive parts of the adjustments). */
  long owned;

  /** How many holdings own permits. */
  int owners;

  /** The sum of every lease's amount. */
  long leased;

  HolderTable(boolean slotted) {
    this.usedSlots = slotted ? new BitSet() : null;
  }

  /** Counts a holding's owned permits going from {@code before} to {@code after}. */
  void ownedChanged(long before, long after) {
    owned += after - before;
    if (before == 0 && after > 0) {
      owners++;
    } else if (before > 0 && after == 0) {
      owners--;
    }
  }

  void addLease(Lease lease) {
    leases.put(lease.permitId, lease);
    leased += lease.amount;
  }

  void removeLease(Lease lease) {
    if (leases.remove(lease.permitId) != null) {
      leased -= lease.amount;
    }
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
