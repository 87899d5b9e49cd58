package io.semafor.core;

import org.jspecify.annotations.Nullable;

/** A doubly linked list of nodes through their {@code prev}/{@code next} links. */
final class NodeList {
  private @Nullable Node head;
  private @Nullable Node tail;

  @Nullable Node head() {
    return head;
  }

  void append(Node node) {
    node.prev = tail;
    node.next = null;
    if (tail == null) {
      head = node;
    } else {
      tail.next = node;
    }
    tail = node;
  }

  void remove(Node node) {
    Node p = node.prev;
    Node n = node.next;
    if (p == null) {
      head = n;
    } else {
      p.next = n;
    }
    if (n == null) {
      tail = p;
    } else {
      n.prev = p;
    }
    node.prev = null;
    node.next = null;
  }
}
