package io.semafor.it.faults;

import io.semafor.it.History;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Checks of a fault run's history that need no search: permits and increments accounted for, and
 * the bridge to {@link io.semafor.it.HistoryChecker}. Each returns the violations it found, empty
 * if none, so a failing test shows them. Like the linearizability check, each trusts only what
 * clients saw, and treats an {@link Op.Outcome#UNKNOWN} op as one that may or may not have
 * happened, so a fault that leaves clients unsure is never mistaken for a bug.
 */
public final class FaultChecks {
  private FaultChecks() {}

  /** Whose permits: one client's, of one semaphore. */
  private record Holder(int client, String semaphore) {}

  /**
   * Whether the increments of {@code counter} all landed, once: its rise from {@code initial} to
   * {@code finalValue} must be at least the sum of its OK increments (or some were lost) and at
   * most that plus the sum of its UNKNOWN ones (or some were applied twice, as a retry of one that
   * had landed would). FAILED increments must not have landed and are left out.
   *
   * @throws IllegalArgumentException if the history acquires or releases {@code counter}: the
   *     arithmetic holds only for a semaphore nothing but increments changes
   */
  public static List<String> incrementsAccountedFor(
      List<Op> ops, String counter, long initial, long finalValue) {
    long ok = 0;
    long unknown = 0;
    for (Op op : ops) {
      if (!op.semaphore().equals(counter) || op.kind().equals(Op.READ)) {
        continue;
      }
      if (!op.kind().equals(Op.INCREMENT)) {
        throw new IllegalArgumentException(
            counter + " is not a counter only incremented: " + op.describe());
      }
      if (op.outcome() == Op.Outcome.OK) {
        ok += op.amount();
      } else if (op.outcome() == Op.Outcome.UNKNOWN) {
        unknown += op.amount();
      }
    }
    long rise = finalValue - initial;
    List<String> violations = new ArrayList<>();
    if (rise < ok) {
      violations.add(
          String.format(
              "lost increments of %s: %d lost (it rose by %d, OK increments add %d)",
              counter, ok - rise, rise, ok));
    } else if (rise > ok + unknown) {
      violations.add(
          String.format(
              "duplicated increments of %s: %d too many (it rose by %d, OK increments add %d"
                  + " and UNKNOWN ones at most %d)",
              counter, rise - ok - unknown, rise, ok, unknown));
    }
    return violations;
  }

  /**
   * Whether every permit of {@code semaphore}, a semaphore changed only by increments and by takes
   * for good (WaitMany grants), is accounted for: its value must have risen from {@code initial} by
   * what the increments added less what the takes consumed. An increment or take whose answer never
   * came may or may not have landed (an UNKNOWN take, at most its amount); so the rise must be at
   * most the OK and UNKNOWN increments less the OK takes (more: a grant reported to a client was
   * also given back, or an increment applied twice) and at least the OK increments less every take
   * that may have happened (less: permits vanished, granted to no one who was told).
   *
   * @throws IllegalArgumentException if the history acquires or releases {@code semaphore}
   */
  public static List<String> incrementsAndTakesAccountedFor(
      List<Op> ops, String semaphore, long initial, long finalValue) {
    long[] okUnknownIncrements = new long[2];
    long[] okUnknownTakes = new long[2];
    for (Op op : ops) {
      if (!op.semaphore().equals(semaphore)
          || op.kind().equals(Op.READ)
          || op.outcome() == Op.Outcome.FAILED) {
        continue;
      }
      long[] sums =
          switch (op.kind()) {
            case Op.INCREMENT -> okUnknownIncrements;
            case Op.TAKE -> okUnknownTakes;
            default ->
                throw new IllegalArgumentException(
                    semaphore + " is changed by more than increments and takes: " + op.describe());
          };
      sums[op.outcome() == Op.Outcome.OK ? 0 : 1] += op.amount();
    }
    long rise = finalValue - initial;
    long most = okUnknownIncrements[0] + okUnknownIncrements[1] - okUnknownTakes[0];
    long least = okUnknownIncrements[0] - okUnknownTakes[0] - okUnknownTakes[1];
    String sums =
        String.format(
            "increments add %d OK and at most %d UNKNOWN, takes consumed %d OK and at most %d"
                + " UNKNOWN",
            okUnknownIncrements[0], okUnknownIncrements[1], okUnknownTakes[0], okUnknownTakes[1]);
    List<String> violations = new ArrayList<>();
    if (rise > most) {
      violations.add(
          String.format(
              "permits of %s from nothing: it rose by %d, at most %d can be accounted for (%s)",
              semaphore, rise, most, sums));
    } else if (rise < least) {
      violations.add(
          String.format(
              "permits of %s lost: it rose by %d, at least %d must be accounted for (%s)",
              semaphore, rise, least, sums));
    }
    return violations;
  }

  /**
   * OK releases of permits the releasing client could not have held. Per client and semaphore, in
   * invocation order, a client may hold at most what it acquired (OK or UNKNOWN: an acquire the
   * client gave up on may still have been granted) less what it has released already (OK: an
   * UNKNOWN release may not have happened); a release the server accepted beyond that gave back
   * permits someone else held, or conjured new ones.
   */
  public static List<String> releasesOfUnheldPermits(List<Op> ops) {
    Map<Holder, Long> mostHeld = new HashMap<>();
    List<String> violations = new ArrayList<>();
    for (Op op : byInvocation(ops)) {
      Holder holder = new Holder(op.client(), op.semaphore());
      long held = mostHeld.getOrDefault(holder, 0L);
      if (op.kind().equals(Op.ACQUIRE) && op.outcome() != Op.Outcome.FAILED) {
        mostHeld.put(holder, held + op.amount());
      } else if (op.kind().equals(Op.RELEASE) && op.outcome() == Op.Outcome.OK) {
        if (op.amount() > held) {
          violations.add(
              String.format(
                  "%s released %d permits while holding at most %d",
                  op.describe(), op.amount(), held));
        }
        // Whatever it held, it holds no fewer than none now.
        mostHeld.put(holder, Math.max(0, held - op.amount()));
      }
    }
    return violations;
  }

  /**
   * Semaphores whose value, once every session has ended (so every owned permit has been given
   * back, by its client or by the server when the session expired), is not their capacity: fewer
   * free permits means some were leaked, more means some were returned twice or conjured. A
   * semaphore with no value read is a violation too: the check cannot vouch for it.
   */
  public static List<String> permitsBackAtQuiescence(
      Map<String, Long> capacity, Map<String, Long> valuesAfterAllSessionsEnded) {
    List<String> violations = new ArrayList<>();
    for (Map.Entry<String, Long> e : new TreeMap<>(capacity).entrySet()) {
      Long value = valuesAfterAllSessionsEnded.get(e.getKey());
      long cap = e.getValue();
      if (value == null) {
        violations.add(e.getKey() + ": no value read after all sessions ended");
      } else if (value < cap) {
        violations.add(
            String.format(
                "%s: leaked %d permits (value %d, capacity %d)",
                e.getKey(), cap - value, value, cap));
      } else if (value > cap) {
        violations.add(
            String.format(
                "%s: %d permits too many (value %d, capacity %d)",
                e.getKey(), value - cap, value, cap));
      }
    }
    return violations;
  }

  /**
   * The OK acquisitions of {@code ops} as {@link History.Hold}s, so that {@link
   * io.semafor.it.HistoryChecker}'s token and sequence checks apply to histories of many processes.
   * Tokens and arrival sequences are global to the server or cluster, so those checks may be given
   * every semaphore's holds at once; the capacity check needs one semaphore's: {@link
   * #holdsOf(List, String)}.
   *
   * <p>Per client and semaphore, each release ends the earliest holds still open (permits are
   * interchangeable), splitting a hold a release ends only part of. A hold ends at the release's
   * invocation, which is as long as it was certainly held: an UNKNOWN release ends it as well (the
   * permits may be gone from then on), a FAILED one does not. A hold no release ends has {@code
   * releaseInvoked} {@link Long#MAX_VALUE}: still held. UNKNOWN acquisitions are left out, since
   * they were not certainly held; a release meant for one may then end an OK hold early, which only
   * makes the capacity check less strict, never wrong.
   */
  public static List<History.Hold> holdsOf(List<Op> ops) {
    record Open(Op acquire, long left) {}
    Map<Holder, Deque<Open>> open = new LinkedHashMap<>();
    List<History.Hold> holds = new ArrayList<>();
    for (Op op : byInvocation(ops)) {
      Deque<Open> mine =
          open.computeIfAbsent(new Holder(op.client(), op.semaphore()), h -> new ArrayDeque<>());
      if (op.kind().equals(Op.ACQUIRE) && op.outcome() == Op.Outcome.OK) {
        mine.addLast(new Open(op, op.amount()));
      } else if (op.kind().equals(Op.RELEASE) && op.outcome() != Op.Outcome.FAILED) {
        long toRelease = op.amount();
        while (toRelease > 0 && !mine.isEmpty()) {
          Open oldest = mine.removeFirst();
          long ended = Math.min(toRelease, oldest.left());
          holds.add(hold(oldest.acquire(), ended, op));
          toRelease -= ended;
          if (ended < oldest.left()) {
            mine.addFirst(new Open(oldest.acquire(), oldest.left() - ended));
          }
        }
      }
    }
    for (Deque<Open> stillOpen : open.values()) {
      for (Open o : stillOpen) {
        holds.add(hold(o.acquire(), o.left(), null));
      }
    }
    holds.sort(Comparator.comparingLong(History.Hold::acquireInvoked));
    return holds;
  }

  /** {@link #holdsOf(List)} for one semaphore's ops: what the capacity check takes. */
  public static List<History.Hold> holdsOf(List<Op> ops, String semaphore) {
    List<Op> mine = new ArrayList<>();
    for (Op op : ops) {
      if (op.semaphore().equals(semaphore)) {
        mine.add(op);
      }
    }
    return holdsOf(mine);
  }

  private static History.Hold hold(Op acquire, long amount, @Nullable Op release) {
    long releaseInvoked = release == null ? Long.MAX_VALUE : release.invoked();
    long releaseReturned =
        release == null || release.outcome() != Op.Outcome.OK
            ? Long.MAX_VALUE
            : release.completed();
    return new History.Hold(
        acquire.client(),
        amount,
        acquire.invoked(),
        acquire.completed(),
        acquire.token(),
        acquire.sequence(),
        releaseInvoked,
        releaseReturned);
  }

  private static List<Op> byInvocation(List<Op> ops) {
    List<Op> sorted = new ArrayList<>(ops);
    sorted.sort(Comparator.comparingLong(Op::invoked));
    return sorted;
  }
}
