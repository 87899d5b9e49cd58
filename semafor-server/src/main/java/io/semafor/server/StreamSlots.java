package io.semafor.server;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Who may open one more console stream (decision 0047, docs/console.md#how-live-is-live): at most
 * {@code max} on the node; at most {@code perOperator} for a principal with the {@code cluster}
 * permission (an open server's anonymous has it) and {@code perPrincipal} for any other; and the
 * last {@code reserved} slots only for principals with {@code cluster}, so that principals with few
 * rights, however many, cannot crowd the operator out of the console. Thread-safe.
 */
final class StreamSlots {
  private final int max;
  private final int perOperator;
  private final int perPrincipal;
  private final int reserved;
  private final Map<String, Integer> held = new HashMap<>();
  private int open;

  StreamSlots(int max, int perOperator, int perPrincipal, int reserved) {
    if (reserved >= max || perPrincipal > max - reserved || perOperator > max) {
      throw new IllegalArgumentException("slots do not add up");
    }
    this.max = max;
    this.perOperator = perOperator;
    this.perPrincipal = perPrincipal;
    this.reserved = reserved;
  }

  /**
   * Takes a slot for {@code principal}; why not, as the 503 BUSY message, if it may not have one.
   *
   * @param operator whether the principal has the {@code cluster} permission
   */
  synchronized @Nullable String take(String principal, boolean operator) {
    int mine = held.getOrDefault(principal, 0);
    int cap = operator ? perOperator : perPrincipal;
    if (mine >= cap) {
      return "this principal already has "
          + mine
          + " console streams open on this node, the most one "
          + (operator ? "principal with 'cluster'" : "principal without 'cluster'")
          + " may have; close a page";
    }
    if (open >= max) {
      return "all " + max + " console streams of this node are open; close a page";
    }
    if (!operator && open >= max - reserved) {
      return "the last "
          + reserved
          + " of this node's "
          + max
          + " console streams are kept for principals with the 'cluster' permission, and the"
          + " other "
          + (max - reserved)
          + " are open; close a page";
    }
    held.put(principal, mine + 1);
    open++;
    return null;
  }

  /** Gives back a slot {@link #take} gave {@code principal}. */
  synchronized void give(String principal) {
    Integer mine = held.get(principal);
    if (mine == null) {
      return;
    }
    if (mine <= 1) {
      held.remove(principal);
    } else {
      held.put(principal, mine - 1);
    }
    open--;
  }

  /** How many slots are taken. */
  synchronized int open() {
    return open;
  }
}
