package io.semafor.core;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A map from positive {@code long} ids (sessions, requests) to values: open addressing with linear
 * probing and backward-shift deletion. Every command looks up its session and request ids, and a
 * {@code HashMap<Long, V>} costs a boxed key and a 32-byte node per entry and per lookup, which was
 * a third of the apply time (docs/decisions/0004-long-keyed-tables.md).
 *
 * <p>Iteration order depends on the history of the table, so code whose output must not depend on
 * it walks {@link #sortedKeys()} instead.
 *
 * @param <V> the values
 */
final class LongTable<V> {
  private static final int MIN_CAPACITY = 8;

  private long[] keys;
  private @Nullable Object[] values;
  private int size;

  LongTable() {
    keys = new long[MIN_CAPACITY];
    values = new Object[MIN_CAPACITY];
  }

  int size() {
    return size;
  }

  private static int slot(long key, int mask) {
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> 32) & mask;
  }

  @SuppressWarnings("unchecked") // only V is ever stored
  @Nullable V get(long key) {
    long[] k = keys;
    int mask = k.length - 1;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      if (k[i] == key) {
        return (V) values[i];
      }
      if (k[i] == 0) {
        return null;
      }
    }
  }

  /**
   * Maps {@code key}, which must be positive, to {@code value}.
   *
   * @throws IllegalArgumentException if {@code key} is not positive
   */
  void put(long key, V value) {
    if (key <= 0) {
      throw new IllegalArgumentException("key not positive: " + key);
    }
    int mask = keys.length - 1;
    for (int i = slot(key, mask); ; i = (i + 1) & mask) {
      if (keys[i] == key) {
        values[i] = value;
        return;
      }
      if (keys[i] == 0) {
        keys[i] = key;
        values[i] = value;
        if (++size * 4L > keys.length * 3L) {
          resize(keys.length * 2);
        }
        return;
      }
    }
  }

  @SuppressWarnings("unchecked") // only V is ever stored
  @Nullable V remove(long key) {
    long[] k = keys;
    int mask = k.length - 1;
    int i = slot(key, mask);
    while (k[i] != key) {
      if (k[i] == 0) {
        return null;
      }
      i = (i + 1) & mask;
    }
    V old = (V) values[i];
    int hole = i;
    for (int j = (hole + 1) & mask; k[j] != 0; j = (j + 1) & mask) {
      int home = slot(k[j], mask);
      boolean homeAfterHole = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!homeAfterHole) {
        k[hole] = k[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    k[hole] = 0;
    values[hole] = null;
    size--;
    return old;
  }

  void clear() {
    Arrays.fill(keys, 0);
    Arrays.fill(values, null);
    size = 0;
  }

  private void resize(int capacity) {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[capacity];
    values = new Object[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != 0) {
        int i = slot(oldKeys[j], mask);
        while (keys[i] != 0) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
      }
    }
  }

  /** The keys in increasing order. */
  long[] sortedKeys() {
    long[] out = new long[size];
    int n = 0;
    for (long key : keys) {
      if (key != 0) {
        out[n++] = key;
      }
    }
    Arrays.sort(out);
    return out;
  }

  /** Visits every value, in no particular order. */
  @SuppressWarnings("unchecked") // only V is ever stored
  <E extends Exception> void forEachValue(Visitor<V, E> visitor) throws E {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != 0) {
        visitor.visit((V) values[i]);
      }
    }
  }

  /** What {@link #forEachValue} does with each value. */
  interface Visitor<V, E extends Exception> {
    void visit(V value) throws E;
  }
}
