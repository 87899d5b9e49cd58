package io.semafor.core;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The semaphores in name order (unsigned bytes, as {@link Name#compareTo}), so that a {@code list}
 * page costs O(log n + page) instead of a scan and sort of every name
 * (docs/decisions/0024-ordered-names.md).
 *
 * <p>A two-level sorted structure: a sorted array of leaves, each a sorted array of up to {@link
 * #LEAF} semaphores, with each leaf's first semaphore copied into {@link #firsts} so that finding a
 * leaf is a binary search over one array. It stores references only (about 4–8 bytes per semaphore
 * against 40 for a {@code TreeMap} entry) and an insert or removal moves at most one leaf's
 * references, plus, when a leaf splits or empties, the leaf arrays.
 *
 * <p>Its layout depends on history, but nothing observable does: every answer is in name order, and
 * names are unique. It is not written to snapshots; {@link #load} rebuilds it.
 */
final class NameOrder {
  /** Most semaphores per leaf: 2 KiB of references, a few cache lines moved per insert. */
  static final int LEAF = 512;

  private static final Comparator<Semaphore> BY_NAME =
      (a, b) -> Arrays.compareUnsigned(a.name, b.name);

  private Semaphore[][] leaves = new Semaphore[4][];
  private Semaphore[] firsts = new Semaphore[4];
  private int[] sizes = new int[4];
  private int leafCount;
  private int size;

  int size() {
    return size;
  }

  /** Adds a semaphore whose name is not in the order. */
  void add(Semaphore s) {
    if (leafCount == 0) {
      insertLeaf(0, new Semaphore[LEAF], 0);
    }
    int li = leafOf(s.name);
    Semaphore[] leaf = leaves[li];
    int pos = -search(leaf, sizes[li], s.name) - 1;
    if (pos < 0) {
      throw new IllegalStateException("name already ordered: " + s);
    }
    if (sizes[li] == LEAF) {
      if (li == leafCount - 1 && pos == LEAF) {
        // appending past the last name (names created in order) starts a new leaf instead of
        // splitting, so that leaves filled that way stay full, not half full
        insertLeaf(li + 1, new Semaphore[LEAF], 0);
        li++;
        pos = 0;
      } else {
        split(li);
        if (pos > sizes[li]) {
          pos -= sizes[li];
          li++;
        }
      }
      leaf = leaves[li];
    }
    System.arraycopy(leaf, pos, leaf, pos + 1, sizes[li] - pos);
    leaf[pos] = s;
    sizes[li]++;
    firsts[li] = leaf[0];
    size++;
  }

  /** Removes this semaphore, which must be in the order. */
  void remove(Semaphore s) {
    int li = leafOf(s.name);
    if (li < 0) {
      throw new IllegalStateException("name not ordered: " + s);
    }
    Semaphore[] leaf = leaves[li];
    int pos = search(leaf, sizes[li], s.name);
    if (pos < 0) {
      throw new IllegalStateException("name not ordered: " + s);
    }
    int n = --sizes[li];
    System.arraycopy(leaf, pos + 1, leaf, pos, n - pos);
    leaf[n] = null;
    size--;
    if (n == 0) {
      removeLeaf(li);
      return;
    }
    firsts[li] = leaf[0];
    // Merging neighbours that fit in half a leaf together keeps leaves at least a quarter full on
    // average after many deletions, so memory and the leaf search track the live count.
    if (li + 1 < leafCount && n + sizes[li + 1] <= LEAF / 2) {
      merge(li);
    } else if (li > 0 && n + sizes[li - 1] <= LEAF / 2) {
      merge(li - 1);
    }
  }

  /**
   * Replaces the order with these semaphores, whose names must be distinct: sorts them and packs
   * full leaves, O(n log n), for a restore.
   */
  void load(Semaphore[] all, int count) {
    Semaphore[] sorted = Arrays.copyOf(all, count);
    Arrays.sort(sorted, BY_NAME);
    int n = (count + LEAF - 1) / LEAF;
    leaves = new Semaphore[Math.max(4, n)][];
    firsts = new Semaphore[leaves.length];
    sizes = new int[leaves.length];
    for (int i = 0; i < n; i++) {
      int from = i * LEAF;
      int len = Math.min(LEAF, count - from);
      Semaphore[] leaf = new Semaphore[LEAF];
      System.arraycopy(sorted, from, leaf, 0, len);
      leaves[i] = leaf;
      firsts[i] = leaf[0];
      sizes[i] = len;
    }
    leafCount = n;
    size = count;
  }

  /** What {@link #visitFrom} does with each semaphore; false stops the walk. */
  interface Visitor {
    boolean visit(Semaphore s);
  }

  /**
   * Visits the semaphores whose names are after {@code key} (or equal to it, if {@code inclusive})
   * in name order, until the visitor returns false: O(log n) to find the first, then O(1) each.
   */
  void visitFrom(byte[] key, boolean inclusive, Visitor visitor) {
    if (leafCount == 0) {
      return;
    }
    int li = leafOf(key);
    int pos = search(leaves[li], sizes[li], key);
    if (pos < 0) {
      pos = -pos - 1;
    } else if (!inclusive) {
      pos++;
    }
    for (; li < leafCount; li++, pos = 0) {
      Semaphore[] leaf = leaves[li];
      for (int n = sizes[li]; pos < n; pos++) {
        if (!visitor.visit(leaf[pos])) {
          return;
        }
      }
    }
  }

  /** The leaf that holds {@code key} or would hold it: the last whose first name is not after. */
  private int leafOf(byte[] key) {
    int lo = 1;
    int hi = leafCount - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(firsts[mid].name, key) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return lo - 1;
  }

  /** As {@link Arrays#binarySearch}: the index of {@code key}, or -(insertion point) - 1. */
  private static int search(Semaphore[] leaf, int n, byte[] key) {
    int lo = 0;
    int hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = Arrays.compareUnsigned(leaf[mid].name, key);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -lo - 1;
  }

  private void split(int li) {
    Semaphore[] leaf = leaves[li];
    int half = sizes[li] / 2;
    Semaphore[] right = new Semaphore[LEAF];
    int moved = sizes[li] - half;
    System.arraycopy(leaf, half, right, 0, moved);
    Arrays.fill(leaf, half, sizes[li], null);
    sizes[li] = half;
    insertLeaf(li + 1, right, moved);
  }

  /** Moves leaf {@code li + 1}'s semaphores to the end of leaf {@code li} and drops it. */
  private void merge(int li) {
    System.arraycopy(leaves[li + 1], 0, leaves[li], sizes[li], sizes[li + 1]);
    sizes[li] += sizes[li + 1];
    firsts[li] = leaves[li][0];
    removeLeaf(li + 1);
  }

  private void insertLeaf(int at, Semaphore[] leaf, int count) {
    if (leafCount == leaves.length) {
      int capacity = leaves.length + (leaves.length >> 1);
      leaves = Arrays.copyOf(leaves, capacity);
      firsts = Arrays.copyOf(firsts, capacity);
      sizes = Arrays.copyOf(sizes, capacity);
    }
    System.arraycopy(leaves, at, leaves, at + 1, leafCount - at);
    System.arraycopy(firsts, at, firsts, at + 1, leafCount - at);
    System.arraycopy(sizes, at, sizes, at + 1, leafCount - at);
    leaves[at] = leaf;
    firsts[at] = leaf[0];
    sizes[at] = count;
    leafCount++;
  }

  private void removeLeaf(int at) {
    leafCount--;
    System.arraycopy(leaves, at + 1, leaves, at, leafCount - at);
    System.arraycopy(firsts, at + 1, firsts, at, leafCount - at);
    System.arraycopy(sizes, at + 1, sizes, at, leafCount - at);
    leaves[leafCount] = null;
    firsts[leafCount] = null;
    sizes[leafCount] = 0;
  }
}
