package io.semafor.client.internal;

import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Makes sure no answer a client read stays unacknowledged for more than about {@link #DELAY_NANOS}
 * (docs/semantics.md#delivery: until the server has the acknowledgement, a grant counts as in
 * transit and a lease dies with its session).
 *
 * <p>Acknowledgements ride on the next request for free, so a client with traffic never sends a
 * keep-alive for them. But something must look a moment after each answer, in case no request
 * follows: a {@link Link} that reads an answer registers here (a volatile read when it already is),
 * and one thread for the whole process looks at every registered link when its oldest
 * acknowledgement comes due, asking that link's io thread to send a keep-alive carrying all it has.
 * A link that read no answer for {@link #IDLE_NANOS} is dropped from the set, and the thread parks
 * until a link registers again. So clients in a closed loop of requests cost the process one
 * wake-up per {@link #DELAY_NANOS} between them, not one per answer, and a burst of answers costs
 * one keep-alive, not one each.
 *
 * <p>The thread writes nothing itself and never blocks on a connection. Thread-safe.
 */
final class AckTimer {
  /** How long an acknowledgement waits for a request to carry it before a keep-alive does. */
  static final long DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * How long a link stays in the set after its last answer: a closed loop of requests keeps it
   * there, so the thread ticks on by itself instead of being woken after every answer.
   */
  private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final Set<Link> waiting = ConcurrentHashMap.newKeySet();
  private static final Thread thread = start();

  /** The thread parks with no deadline: a registration must wake it. */
  private static volatile boolean idle;

  private AckTimer() {}

  private static Thread start() {
    Thread t = new Thread(AckTimer::run, "semafor-client-acks");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** {@code link} has an acknowledgement waiting: look at it within {@link #DELAY_NANOS}. */
  static void watch(Link link) {
    waiting.add(link);
    if (idle) {
      LockSupport.unpark(thread);
    }
  }

  private static void run() {
    while (true) {
      if (waiting.isEmpty()) {
        idle = true;
        if (waiting.isEmpty()) { // a link registering now sees idle and unparks us
          LockSupport.park(AckTimer.class);
        }
        idle = false;
        continue;
      }
      long next = tick(System.nanoTime());
      LockSupport.parkNanos(AckTimer.class, next - System.nanoTime());
    }
  }

  /** Asks every link whose oldest acknowledgement is due to send; returns when to look again. */
  private static long tick(long now) {
    long next = now + DELAY_NANOS;
    for (Iterator<Link> links = waiting.iterator(); links.hasNext(); ) {
      Link link = links.next();
      long oldest = link.oldestAckReadAt();
      if (oldest == Link.NO_ACK) {
        if (now - link.lastAckReadAt() >= IDLE_NANOS) {
          links.remove();
          link.ackTimerLeft(); // registers again if an answer was read meanwhile
        }
      } else if (now - oldest >= DELAY_NANOS) {
        link.sendAcksNow();
      } else {
        next = Math.min(next, oldest + DELAY_NANOS);
      }
    }
    return next;
  }
}
