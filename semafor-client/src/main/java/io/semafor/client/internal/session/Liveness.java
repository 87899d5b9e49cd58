package io.semafor.client.internal.session;

/**
 * Whether the server is still there, as the session machine judges it (protocol.md §2): when it
 * last sent and last heard, and the keep-alive that probes a silence. A keep-alive goes out at a
 * third of the TTL after the last frame sent; a server silent for the probe delay while answers are
 * outstanding is sent a keep-alive, and one that does not answer it within the answer deadline is
 * left. Times are monotonic nanoseconds, compared by difference. Not thread-safe: the machine's.
 */
final class Liveness {
  private long lastSent;
  private long lastHeard;

  /** The keep-alive probing a silent server (0: none) and when it went. */
  private long probeId;

  private long probeSentAt;

  void sent(long now) {
    lastSent = now;
  }

  void heard(long now) {
    lastHeard = now;
  }

  /** A keep-alive with no acknowledgements went: it probes the server, unless one already does. */
  void probing(long keepAliveId, long now) {
    if (probeId == 0) {
      probeId = keepAliveId;
      probeSentAt = now;
    }
  }

  /** Keep-alive {@code keepAliveId} was answered: if it was the probe, the server is there. */
  void answered(long keepAliveId) {
    if (probeId == keepAliveId) {
      probeId = 0;
    }
  }

  /** The connection is gone: nothing is being probed on it. */
  void reset() {
    probeId = 0;
  }

  /** Whether the probe went unanswered for {@code answerDeadline}: the server is silent. */
  boolean probeUnanswered(long now, long answerDeadline) {
    return probeId != 0 && now - probeSentAt >= answerDeadline;
  }

  /** Whether nothing was heard for {@code probeAfter} (with no probe out yet). */
  boolean quietFor(long now, long probeAfter) {
    return probeId == 0 && now - lastHeard >= probeAfter;
  }

  /** Whether a keep-alive is due: nothing was sent for a third of {@code ttl}. */
  boolean keepAliveDue(long now, long ttl) {
    return now - lastSent >= ttl / 3;
  }

  /** Adds when this next needs a tick, on a session attached with {@code ttl}. */
  void addDeadlines(
      DeadlineMin due, long ttl, long answerDeadline, long probeAfter, boolean outstanding) {
    due.add(lastSent + ttl / 3);
    if (probeId != 0) {
      due.add(probeSentAt + answerDeadline);
    } else if (outstanding) {
      due.add(lastHeard + probeAfter);
    }
  }
}
