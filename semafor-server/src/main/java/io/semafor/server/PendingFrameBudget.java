package io.semafor.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes held for frames not yet complete, across every connection of a server, and their bound.
 * A client that starts a large frame and never finishes it holds its buffer; without a bound a few
 * hundred of them took the process past its direct-memory limit (issue 13). Thread-safe.
 */
final class PendingFrameBudget {
  private final long max;
  private final AtomicLong held = new AtomicLong();

  PendingFrameBudget(long max) {
    this.max = max;
  }

  /** The bound, for messages. */
  long max() {
    return max;
  }

  /** Holds {@code bytes} more, unless that would go over the bound; then holds nothing. */
  boolean tryHold(long bytes) {
    while (true) {
      long now = held.get();
      if (now + bytes > max) {
        return false;
      }
      if (held.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Gives back {@code bytes} held by {@link #tryHold}. */
  void release(long bytes) {
    held.addAndGet(-bytes);
  }

  /** The bytes held now. */
  long held() {
    return held.get();
  }
}
