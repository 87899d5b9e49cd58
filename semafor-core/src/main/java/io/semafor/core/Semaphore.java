package io.semafor.core;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import org.jspecify.annotations.Nullable;

/**
 * One semaphore's state. Kept small because a node holds up to ten million of them: the waiter
 * queue and the holder table exist only while something waits or holds.
 *
 * <p>Invariant (docs/semantics.md#capacity): {@code value + outstanding <= capacity}, where {@code
 * outstanding} is everything taken but still answerable for: positive session adjustments, leases,
 * and non-owned grants not yet acknowledged. Returning any of them therefore never overflows.
 */
final class Semaphore {
  private static final int BARGING = 1;
  private static final int HAS_CAPACITY = 2;
  private static final int DELETED = 4;
  private static final int TOUCHED = 8;
  private static final int SLOTTED = 16;
  private static final int CHANGED = 32;

  final byte[] name;
  final int hash;

  /** The ceiling of {@code value + outstanding}: the capacity, or 2^63-1 without one. */
  final long ceiling;

  final int maxPerSession;
  private int flags;

  long value;
  long outstanding;

  @Nullable WaiterQueue queue;
  @Nullable HolderTable holders;

  Semaphore(byte[] name, int hash, long initial, SemaphoreOptions options, boolean slotted) {
    this.name = name;
    this.hash = hash;
    this.ceiling = options.hasCapacity() ? options.capacity() : Long.MAX_VALUE;
    this.maxPerSession = options.maxPerSession();
    this.flags =
        (options.policy() == Policy.BARGING ? BARGING : 0)
            | (options.hasCapacity() ? HAS_CAPACITY : 0)
            | (slotted ? SLOTTED : 0);
    this.value = initial;
  }

  Name name() {
    return Name.wrap(name);
  }

  SemaphoreOptions options() {
    return new SemaphoreOptions(
        hasCapacity() ? ceiling : SemaphoreOptions.NO_CAPACITY,
        fifo() ? Policy.FIFO : Policy.BARGING,
        maxPerSession);
  }

  boolean fifo() {
    return (flags & BARGING) == 0;
  }

  boolean hasCapacity() {
    return (flags & HAS_CAPACITY) != 0;
  }

  /** Whether owned and leased permits here carry slot numbers. */
  boolean slotted() {
    return (flags & SLOTTED) != 0;
  }

  boolean deleted() {
    return (flags & DELETED) != 0;
  }

  void markDeleted() {
    flags |= DELETED;
  }

  /** Whether it is in the current command's set of semaphores to settle. */
  boolean touched() {
    return (flags & TOUCHED) != 0;
  }

  void setTouched(boolean touched) {
    flags = touched ? flags | TOUCHED : flags & ~TOUCHED;
  }

  /** Whether it is in the current command's list of changed semaphores ({@link Engine#changed}). */
  boolean changed() {
    return (flags & CHANGED) != 0;
  }

  void setChanged(boolean changed) {
    flags = changed ? flags | CHANGED : flags & ~CHANGED;
  }

  /**
   * Whether a taker that arrived at {@code seq} is held back here: under FIFO, by an all-or-nothing
   * taker that arrived earlier (docs/semantics.md#fifo). For a request still arriving, any queued
   * blocker counts, since all of them are earlier.
   */
  boolean holdsBack(long seq) {
    if (!fifo()) {
      return false;
    }
    WaiterQueue q = queue;
    Node blocker = q == null ? null : q.blocker();
    return blocker != null && blocker.waiter().seq < seq;
  }

  /** How much more may be added to the value before the ceiling. */
  long room() {
    return ceiling - outstanding - value;
  }

  WaiterQueue queue() {
    WaiterQueue q = queue;
    if (q == null) {
      q = new WaiterQueue();
      queue = q;
    }
    return q;
  }

  HolderTable holders() {
    HolderTable h = holders;
    if (h == null) {
      h = new HolderTable(slotted());
      holders = h;
    }
    return h;
  }

  /** Drops the queue and holder table once empty, so an idle semaphore costs its fields only. */
  void compact() {
    WaiterQueue q = queue;
    if (q != null && q.isEmpty()) {
      queue = null;
    }
    HolderTable h = holders;
    if (h != null && h.isEmpty()) {
      holders = null;
    }
  }

  int waiterCount() {
    WaiterQueue q = queue;
    return q == null ? 0 : q.size();
  }

  @Override
  public int hashCode() {
    // Deterministic across replicas, unlike the identity hash, so no map keyed by semaphores can
    // iterate differently on two nodes.
    return hash;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return this == o;
  }

  @Override
  public String toString() {
    return Name.quote(name);
  }
}
