package io.semafor.core;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The semaphores by name: an open-addressing table with linear probing that stores the semaphores
 * themselves, 4 bytes a slot. A {@code HashMap<Name, Semaphore>} costs a 32-byte node and a 16-byte
 * key wrapper per semaphore on top of that, which puts ten million semaphores past the memory goal
 * (docs/decisions/0003-semaphore-index.md).
 *
 * <p>Deletion shifts later entries of the run back instead of leaving tombstones, so every entry
 * sits between its home slot and the next empty slot with no gap. Because of that, {@link
 * #forEachInRunOrder} followed by re-insertion into a table of the same size rebuilds the same
 * layout, and a snapshot written in that order round-trips byte for byte.
 */
final class SemaphoreIndex {
  private static final int MIN_CAPACITY = 16;

  private Semaphore[] table;
  private int size;

  /** The same semaphores in name order, for {@code list}; kept in step by add and remove. */
  private final NameOrder order = new NameOrder();

  SemaphoreIndex() {
    this(MIN_CAPACITY);
  }

  /** An empty index whose table has {@code capacity} slots, a power of two. */
  SemaphoreIndex(int capacity) {
    if (capacity < MIN_CAPACITY || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity not a power of two >= 16: " + capacity);
    }
    table = new Semaphore[capacity];
  }

  int size() {
    return size;
  }

  int capacity() {
    return table.length;
  }

  @Nullable Semaphore get(Name name) {
    byte[] bytes = name.bytes();
    int hash = name.hash();
    Semaphore[] t = table;
    int mask = t.length - 1;
    for (int i = hash & mask; ; i = (i + 1) & mask) {
      Semaphore s = t[i];
      if (s == null) {
        return null;
      }
      if (s.hash == hash && Arrays.equals(s.name, bytes)) {
        return s;
      }
    }
  }

  /** Adds a semaphore whose name is not in the index. */
  void add(Semaphore semaphore) {
    addUnordered(semaphore);
    order.add(semaphore);
  }

  /**
   * Adds a semaphore whose name is not in the index, leaving it out of the name order until {@link
   * #orderNames}: a restore adds every semaphore in run order, and one sort beats that many ordered
   * inserts.
   */
  void addUnordered(Semaphore semaphore) {
    if ((size + 1) * 4L > table.length * 3L) {
      resize(table.length * 2);
    }
    place(table, semaphore);
    size++;
  }

  /** Rebuilds the name order from every semaphore in the index, after {@link #addUnordered}. */
  void orderNames() {
    Semaphore[] all = new Semaphore[size];
    int[] n = {0};
    forEachInRunOrder(s -> all[n[0]++] = s);
    order.load(all, n[0]);
  }

  /** The semaphores in name order. */
  NameOrder order() {
    return order;
  }

  private static void place(Semaphore[] t, Semaphore semaphore) {
    int mask = t.length - 1;
    int i = semaphore.hash & mask;
    while (t[i] != null) {
      i = (i + 1) & mask;
    }
    t[i] = semaphore;
  }

  /** Removes this semaphore object, if present. */
  @SuppressWarnings("ReferenceEquality") // a semaphore is its identity; equals() is identity too
  void remove(Semaphore semaphore) {
    Semaphore[] t = table;
    int mask = t.length - 1;
    int i = semaphore.hash & mask;
    while (t[i] != semaphore) {
      if (t[i] == null) {
        return;
      }
      i = (i + 1) & mask;
    }
    // Backward-shift deletion: move later entries of the run into the hole when the hole lies
    // between their home slot and where they sit.
    int hole = i;
    for (int j = (hole + 1) & mask; t[j] != null; j = (j + 1) & mask) {
      int home = t[j].hash & mask;
      boolean homeAfterHole = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!homeAfterHole) {
        t[hole] = t[j];
        hole = j;
      }
    }
    t[hole] = null;
    size--;
    order.remove(semaphore);
    if (table.length > MIN_CAPACITY && size * 8L < table.length) {
      resize(table.length / 2);
    }
  }

  private void resize(int capacity) {
    Semaphore[] old = table;
    Semaphore[] t = new Semaphore[capacity];
    for (Semaphore s : old) {
      if (s != null) {
        place(t, s);
      }
    }
    table = t;
  }

  /**
   * Visits every semaphore, each run of occupied slots from its first slot, starting after an empty
   * slot. Re-adding them in this order to an index of the same {@link #capacity()} reproduces this
   * layout exactly.
   */
  <E extends Exception> void forEachInRunOrder(Visitor<E> action) throws E {
    Semaphore[] t = table;
    int mask = t.length - 1;
    int start = 0;
    while (t[start] != null) {
      start++; // the load factor guarantees an empty slot
    }
    for (int k = 1; k <= t.length; k++) {
      Semaphore s = t[(start + k) & mask];
      if (s != null) {
        action.visit(s);
      }
    }
  }

  /** What {@link #forEachInRunOrder} does with each semaphore. */
  interface Visitor<E extends Exception> {
    void visit(Semaphore s) throws E;
  }
}
