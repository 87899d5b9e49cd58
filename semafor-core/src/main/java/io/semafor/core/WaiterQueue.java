package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * The waiters of one semaphore, each list in arrival order (appending keeps it sorted, since
 * sequence numbers only grow):
 *
 * <ul>
 *   <li><b>takers</b>: everything that takes from this semaphore, and within it the <b>take-all
 *       sublist</b> of all-or-nothing takers. Its head is the FIFO blocker: every taker after it is
 *       held back, so under FIFO only the partial takers before it and the blocker itself can be
 *       served next, and both are found in O(1);
 *   <li><b>watchers</b>: {@code semop}s that only add to or wait for zero on this semaphore;
 *   <li><b>zeros</b>: plain {@code awaitZero}s, released together.
 * </ul>
 */
final class WaiterQueue {
  private final NodeList takers = new NodeList();
  private final NodeList watchers = new NodeList();
  private final NodeList zeros = new NodeList();
  private @Nullable Node takeAll;
  private @Nullable Node takeAllTail;
  private int size;
  private int semopTakers;

  @Nullable Node firstTaker() {
    return takers.head();
  }

  /** The earliest all-or-nothing taker: under FIFO, every later taker waits behind it. */
  @Nullable Node blocker() {
    return takeAll;
  }

  @Nullable Node firstWatcher() {
    return watchers.head();
  }

  @Nullable Node firstZero() {
    return zeros.head();
  }

  int size() {
    return size;
  }

  /**
   * Whether {@code node}, once queued on this semaphore, still is. Removal clears a node's links
   * and a node is never queued again, so a queued node either has a predecessor or heads its list.
   */
  boolean contains(Node node) {
    if (node.prev != null) {
      return true;
    }
    return switch (node.role()) {
      case Node.TAKE_ALL, Node.TAKE_PARTIAL -> takers.head() == node;
      case Node.WATCH -> watchers.head() == node;
      case Node.ZERO -> zeros.head() == node;
      default -> false;
    };
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** How many takers are {@code semop}s, the only takers that can be served at value 0. */
  int semopTakers() {
    return semopTakers;
  }

  void append(Node node) {
    size++;
    switch (node.role()) {
      case Node.TAKE_ALL -> {
        if (node instanceof SemopNode) {
          semopTakers++;
        }
        node.prevTakeAll = takeAllTail;
        node.nextTakeAll = null;
        if (takeAllTail == null) {
          takeAll = node;
        } else {
          takeAllTail.nextTakeAll = node;
        }
        takeAllTail = node;
        takers.append(node);
      }
      case Node.TAKE_PARTIAL -> takers.append(node);
      case Node.WATCH -> watchers.append(node);
      case Node.ZERO -> zeros.append(node);
      default -> throw new IllegalStateException("unknown role " + node.role());
    }
  }

  void remove(Node node) {
    size--;
    switch (node.role()) {
      case Node.TAKE_ALL -> {
        if (node instanceof SemopNode) {
          semopTakers--;
        }
        Node p = node.prevTakeAll;
        Node n = node.nextTakeAll;
        if (p == null) {
          takeAll = n;
        } else {
          p.nextTakeAll = n;
        }
        if (n == null) {
          takeAllTail = p;
        } else {
          n.prevTakeAll = p;
        }
        node.prevTakeAll = null;
        node.nextTakeAll = null;
        takers.remove(node);
      }
      case Node.TAKE_PARTIAL -> takers.remove(node);
      case Node.WATCH -> watchers.remove(node);
      case Node.ZERO -> zeros.remove(node);
      default -> throw new IllegalStateException("unknown role " + node.role());
    }
  }
}
