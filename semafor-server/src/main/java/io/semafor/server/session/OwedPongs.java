package io.semafor.server.session;

import java.util.ArrayDeque;

/**
 * The pongs one connection owes, in the order of the keep-alives they answer.
 *
 * <p>A client pairs each pong with its oldest unanswered keep-alive and then forgets the
 * acknowledgements that keep-alive carried. So the pong of a keep-alive carrying acknowledgements
 * is held until they are applied (in a cluster: committed). Sent when they were only queued, it let
 * a leader that died before committing them lose them while the client took its grants as
 * delivered, and ending the session then gave back grants the client had used (a WaitMany grant
 * counted twice, found by the fault harness). A keep-alive without acknowledgements that comes
 * behind a held one waits with it, since the pairing is by order.
 *
 * <p>Not thread-safe: part of a {@link ServerSession}.
 */
final class OwedPongs {
  /** A held keep-alive, with the number of plain keep-alives that came after it. */
  private static final class Held {
    int plainBehind;
  }

  private final ArrayDeque<Held> held = new ArrayDeque<>();

  /**
   * A keep-alive without acknowledgements came: whether its pong may go now (else it goes with the
   * last held one's).
   */
  boolean plain() {
    Held last = held.peekLast();
    if (last == null) {
      return true;
    }
    last.plainBehind++;
    return false;
  }

  /** A keep-alive with acknowledgements came: its pong waits for {@link #applied}. */
  void hold() {
    held.addLast(new Held());
  }

  /**
   * The oldest held keep-alive's acknowledgements were applied (commands of one connection are
   * applied in the order they were submitted): how many pongs may go now, that one's and those of
   * the plain keep-alives behind it.
   */
  int applied() {
    Held h = held.pollFirst();
    return h == null ? 0 : 1 + h.plainBehind;
  }
}
