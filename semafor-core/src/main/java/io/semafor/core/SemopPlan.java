package io.semafor.core;

import io.semafor.ErrorCode;
import java.util.Arrays;

/**
 * A {@code semop} with its names resolved: the ops in list order and the distinct semaphores they
 * name. Decides whether the whole list can take effect now (docs/semantics.md#semop): ops are tried
 * in order on a scratch copy, so a name may repeat and a zero op sees what earlier ops left.
 */
final class SemopPlan {
  final Semaphore[] semaphores;
  final long[] deltas;
  final boolean[] noWait;
  final boolean[] owned;

  /** The semaphores named, each once, in order of first appearance. */
  final Semaphore[] distinct;

  /** For each op, the index of its semaphore in {@link #distinct}. */
  final int[] distinctOf;

  SemopPlan(Semaphore[] semaphores, long[] deltas, boolean[] noWait, boolean[] owned) {
    this.semaphores = semaphores;
    this.deltas = deltas;
    this.noWait = noWait;
    this.owned = owned;
    this.distinctOf = new int[semaphores.length];
    Semaphore[] found = new Semaphore[semaphores.length];
    int count = 0;
    for (int i = 0; i < semaphores.length; i++) {
      int d = 0;
      while (d < count && !found[d].equals(semaphores[i])) {
        d++;
      }
      if (d == count) {
        found[count++] = semaphores[i];
      }
      distinctOf[i] = d;
    }
    this.distinct = Arrays.copyOf(found, count);
  }

  int size() {
    return semaphores.length;
  }

  /** Whether any op takes from distinct semaphore {@code d}. */
  boolean takes(int d) {
    for (int i = 0; i < deltas.length; i++) {
      if (distinctOf[i] == d && deltas[i] < 0) {
        return true;
      }
    }
    return false;
  }

  /** The total that owned ops take from distinct semaphore {@code d}. */
  long ownedTakes(int d) {
    long sum = 0;
    for (int i = 0; i < deltas.length; i++) {
      if (distinctOf[i] == d && deltas[i] < 0 && owned[i]) {
        sum += -deltas[i];
      }
    }
    return sum;
  }

  /**
   * Whether the list can take effect now for a request of {@code session} that arrived at {@code
   * seq}. A request held back on any semaphore it takes from is not evaluated further: it waits, or
   * fails with {@code WOULD_BLOCK} if the first held-back op has {@code NOWAIT}.
   */
  Verdict evaluate(Session session, long seq) {
    for (int i = 0; i < deltas.length; i++) {
      if (deltas[i] < 0 && semaphores[i].holdsBack(seq)) {
        return blockedAt(i);
      }
    }
    int n = distinct.length;
    long[] value = new long[n];
    long[] outstanding = new long[n];
    long[] adjustment = new long[n];
    for (int d = 0; d < n; d++) {
      value[d] = distinct[d].value;
      outstanding[d] = distinct[d].outstanding;
      Holding h = session.findHolding(distinct[d]);
      adjustment[d] = h == null ? 0 : h.adjustment;
    }
    for (int i = 0; i < deltas.length; i++) {
      int d = distinctOf[i];
      long delta = deltas[i];
      if (delta < 0) {
        long take = -delta;
        if (value[d] < take) {
          return blockedAt(i);
        }
        value[d] -= take;
        if (owned[i]) {
          long before = Math.max(adjustment[d], 0);
          adjustment[d] += take;
          outstanding[d] += Math.max(adjustment[d], 0) - before;
        } else {
          outstanding[d] += take;
        }
      } else if (delta == 0) {
        if (value[d] != 0) {
          return blockedAt(i);
        }
      } else {
        long room = semaphores[i].ceiling - outstanding[d] - value[d];
        if (owned[i]) {
          if (adjustment[d] < Long.MIN_VALUE + delta) {
            return Verdict.fail(
                ErrorCode.OVERFLOW,
                "ops["
                    + i
                    + "].delta: the session's adjustment on "
                    + semaphores[i]
                    + " would pass -2^63");
          }
          long before = Math.max(adjustment[d], 0);
          adjustment[d] -= delta;
          long paidBack = before - Math.max(adjustment[d], 0);
          if (delta - paidBack > room) {
            return overflowAt(i);
          }
          outstanding[d] -= paidBack;
        } else if (delta > room) {
          return overflowAt(i);
        }
        value[d] += delta;
      }
    }
    return Verdict.SERVABLE;
  }

  private Verdict blockedAt(int i) {
    if (noWait[i]) {
      return Verdict.fail(
          ErrorCode.WOULD_BLOCK, "ops[" + i + "]: NOWAIT, and " + semaphores[i] + " would wait");
    }
    return Verdict.BLOCKED;
  }

  private Verdict overflowAt(int i) {
    Semaphore s = semaphores[i];
    return Verdict.fail(
        ErrorCode.OVERFLOW,
        "ops["
            + i
            + "].delta: adding "
            + deltas[i]
            + " to "
            + s
            + " would pass its "
            + (s.hasCapacity() ? "capacity " + s.ceiling : "maximum 2^63-1"));
  }
}
