package io.semafor.client.internal;

import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Looks at every {@link Link} whose session machine has acknowledgements due (docs/semantics.md#
 * delivery: an answer read is acknowledged within about a millisecond), and wakes that link's
 * conductor when they are, to tick the machine, which sends them in a keep-alive.
 *
 * <p>Acknowledgements ride on the next request for free, so a client with traffic never needs the
 * keep-alive; but something must look a moment after each answer, in case no request follows. Were
 * it each link's conductor, every answer would cost a thread wake-up (measured: a third of W1's
 * throughput at 16 clients). A link with acknowledgements due registers here (a volatile read when
 * it already is); one thread for the whole process looks when the earliest comes due, and wakes
 * only the conductors of links whose acknowledgements no request carried meanwhile. A link with
 * none due and no frame read for {@link #IDLE_NANOS} leaves the set, and the thread parks until one
 * registers again. Thread-safe; never blocks on a connection.
 */
final class AckTimer {
  /** The longest this thread sleeps while links are in its set. */
  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * How long a link stays in the set after its last frame: a closed loop of requests keeps it
   * there, so the thread ticks on by itself instead of being woken after every answer.
   */
  private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final Set<Link> watched = ConcurrentHashMap.newKeySet();
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

  /** {@code link} has acknowledgements due: look at it by then. */
  static void watch(Link link) {
    watched.add(link);
    if (idle) {
      LockSupport.unpark(thread);
    }
  }

  private static void run() {
    while (true) {
      if (watched.isEmpty()) {
        idle = true;
        if (watched.isEmpty()) { // a link registering now sees idle and unparks us
          LockSupport.park(AckTimer.class);
        }
        idle = false;
        continue;
      }
      long next = tick(System.nanoTime());
      LockSupport.parkNanos(AckTimer.class, next - System.nanoTime());
    }
  }

  /** Wakes every link whose acknowledgements are due; returns when to look again. */
  private static long tick(long now) {
    long next = now + SLICE_NANOS;
    for (Iterator<Link> links = watched.iterator(); links.hasNext(); ) {
      Link link = links.next();
      long due = link.acksDueAt();
      if (due == Link.NO_ACK) {
        if (now - link.lastFrameNanos() >= IDLE_NANOS || link.isClosed()) {
          links.remove();
          link.ackTimerLeft(); // registers again if acknowledgements came due meanwhile
        }
      } else if (now - due >= 0) {
        link.acksDueNow();
      } else if (due - next < 0) {
        next = due;
      }
    }
    return next;
  }
}
