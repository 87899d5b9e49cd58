package io.semafor.core;

import java.util.ArrayList;
import java.util.List;

/**
 * A client request that waits, as the edge sees it when it checks permissions again (decision
 * 0047): whose it is, and the names it would take permits from, give permits to, or wait on to be
 * zero. A WaitMany call takes from the names of its list's entries.
 *
 * @param sessionId its session
 * @param requestId its request id in that session
 * @param principal the principal of its session; empty for nobody in particular
 * @param takes the names it would take from
 * @param gives the names it would give to (a {@code semop} that adds)
 * @param zeroes the names it waits on to be zero
 */
public record WaitingRequest(
    long sessionId,
    long requestId,
    String principal,
    List<Name> takes,
    List<Name> gives,
    List<Name> zeroes) {
  /** Copies the lists. */
  public WaitingRequest {
    takes = List.copyOf(takes);
    gives = List.copyOf(gives);
    zeroes = List.copyOf(zeroes);
  }

  static WaitingRequest of(String principal, Waiter w) {
    List<Name> takes = new ArrayList<>();
    List<Name> gives = new ArrayList<>();
    List<Name> zeroes = new ArrayList<>();
    if (w instanceof SingleWaiter single) {
      Name name = Name.wrap(single.semaphore.name);
      (single.kind == SingleWaiter.AWAIT_ZERO ? zeroes : takes).add(name);
    } else if (w instanceof SemopWaiter semop) {
      SemopPlan plan = semop.plan;
      for (int i = 0; i < plan.size(); i++) {
        long delta = plan.deltas[i];
        Name name = Name.wrap(plan.semaphores[i].name);
        (delta < 0 ? takes : delta > 0 ? gives : zeroes).add(name);
      }
    } else if (w instanceof WaitManyCall call) {
      for (WaitManyEntry entry : call.list.entries.values()) {
        if (!entry.deleted) {
          takes.add(Name.wrap(entry.semaphore.name));
        }
      }
    }
    return new WaitingRequest(w.session.id, w.requestId, principal, takes, gives, zeroes);
  }
}
