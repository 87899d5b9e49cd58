package io.semafor.client.internal;

import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The loop of a {@link Link}'s conductor thread ({@code semafor-client-io}): ticks the session
 * machine at its deadlines — keep-alives, silence, redials, giving up — at least every {@link
 * Link#SLICE_NANOS}, and nudges a caller that reads past its deadline or was interrupted (a
 * keep-alive, whose pong wakes it). Acknowledgements due are the {@link AckTimer}'s to notice.
 */
final class LinkConductor implements Runnable {
  private final Link link;

  LinkConductor(Link link) {
    this.link = link;
  }

  /** Ticks the link.machine at its deadlines and nudges a link.reading caller that must look up. */
  @Override
  public void run() {
    while (!link.closed) {
      long now = System.nanoTime();
      long wakeAt;
      link.lock.lock();
      try {
        link.machine.tick(now);
        if (link.reading.wantsNudge(now) && now - link.lastNudge >= Link.NUDGE_EVERY_NANOS) {
          link.lastNudge = now;
          link.machine.nudge(now);
        }
        link.runEffects();
        OptionalLong next = link.machine.nextDeadline();
        wakeAt = now + Link.SLICE_NANOS;
        boolean acks =
            link.machine.acknowledgementsDue()
                && next.isPresent()
                && next.getAsLong() == link.machine.acknowledgementsDueAt();
        if (next.isPresent() && next.getAsLong() - wakeAt < 0 && !acks) {
          wakeAt = next.getAsLong(); // the AckTimer wakes it for acknowledgements
        }
      } finally {
        link.unlock();
      }
      link.reading.wakeIfWanted(now);
      long sleep = wakeAt - System.nanoTime();
      if (sleep > 0) {
        LockSupport.parkNanos(link, sleep);
      }
    }
  }
}
