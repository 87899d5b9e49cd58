package io.semafor.fuzz;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.core.TimerKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Drives a {@link SemaphoreMachine} as the edge does: increasing revisions, a log clock that only
 * moves forward, the timers it asks for fired as commands when due, pending grants continued, and
 * sessions expired once their TTL has passed. After every command it checks what must hold whatever
 * the commands were (docs/semantics.md#capacity): no value is negative and no semaphore has more
 * permits out than its capacity.
 *
 * <p>A broken rule is an {@link AssertionError}, which a fuzz target reports as a finding; so is
 * any exception out of the machine, whose only documented one is for a revision that does not
 * increase, which this driver never sends. Not thread-safe: one per fuzz input.
 */
public final class MachineDriver {
  /**
   * The most {@code ContinueGrants} one command may need; more is taken as a machine that hangs.
   */
  private static final int MAX_CONTINUATIONS = 100_000;

  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private SemaphoreMachine machine;
  private long revision;
  private long now = 1;
  private final Map<TimerKey, Long> timers = new HashMap<>();
  private final Map<Long, Long> sessionTtls = new HashMap<>();
  private final Consumer<Reply> replies;

  /**
   * A driver of a new machine with these limits; every reply the machine gives goes to {@code
   * replies}.
   */
  public MachineDriver(Limits limits, Consumer<Reply> replies) {
    this(new SemaphoreMachine(limits), replies);
  }

  /** A driver of {@code machine}, e.g. one read from a snapshot, re-arming what it waits for. */
  public MachineDriver(SemaphoreMachine machine, Consumer<Reply> replies) {
    this.machine = machine;
    this.replies = replies;
    this.revision = machine.revision();
    this.now = Math.max(1, machine.now());
    for (Effect.ArmTimer t : machine.timers()) {
      timers.put(t.timer(), t.deadline());
    }
    for (Effect.SessionStarted s : machine.sessions()) {
      sessionTtls.put(s.sessionId(), s.ttl());
    }
  }

  /** The machine driven. */
  public SemaphoreMachine machine() {
    return machine;
  }

  /** The log time now. */
  public long now() {
    return now;
  }

  /** Applies {@code command}, then every continuation it asks for, checking the invariants. */
  public Outcome apply(Command command) {
    Outcome outcome = applyOnce(command);
    boolean pending = pending(outcome);
    for (int i = 0; pending; i++) {
      if (i == MAX_CONTINUATIONS) {
        throw new AssertionError("grants still pending after " + i + " continuations");
      }
      pending = pending(applyOnce(new Command.ContinueGrants()));
    }
    return outcome;
  }

  /** Answers a query, as the edge would, checking the reply is one. */
  public Reply query(Query query) {
    Reply reply = machine.query(query);
    replies.accept(reply);
    return reply;
  }

  /**
   * Moves the log clock on by {@code nanos} (at least 0), then fires every timer now due and
   * expires every session whose TTL has passed (the machine ignores an expiry that is early).
   */
  public void advance(long nanos) {
    long next = now + Math.max(0, nanos);
    now = next < now ? Long.MAX_VALUE / 2 : next;
    List<Map.Entry<TimerKey, Long>> due = new ArrayList<>();
    for (Map.Entry<TimerKey, Long> t : timers.entrySet()) {
      if (t.getValue() <= now) {
        due.add(t);
      }
    }
    due.sort(Map.Entry.comparingByValue());
    for (Map.Entry<TimerKey, Long> t : due) {
      if (timers.remove(t.getKey()) != null) {
        apply(
            t.getKey() instanceof TimerKey.WaiterTimeout w
                ? new Command.ExpireWaiter(w.sessionId(), w.requestId())
                : new Command.ExpireLease(((TimerKey.LeaseEnd) t.getKey()).permitId()));
      }
    }
    // the liveness timer's proposals: the machine ignores one whose session was heard from
    // within its TTL, so proposing for every session tests that rule too
    for (long id : new ArrayList<>(sessionTtls.keySet())) {
      apply(new Command.ExpireSession(id));
    }
  }

  private Outcome applyOnce(Command command) {
    Outcome outcome = machine.apply(++revision, now, command);
    Reply reply = outcome.reply();
    if (reply != null) {
      replies.accept(reply);
    }
    for (Effect e : outcome.effects()) {
      if (e instanceof Effect.ArmTimer arm) {
        timers.put(arm.timer(), arm.deadline());
      } else if (e instanceof Effect.CancelTimer cancel) {
        timers.remove(cancel.timer());
      } else if (e instanceof Effect.SessionStarted started) {
        sessionTtls.put(started.sessionId(), started.ttl());
      } else if (e instanceof Effect.SessionEnded ended) {
        sessionTtls.remove(ended.sessionId());
      } else if (e instanceof Effect.Complete complete) {
        replies.accept(complete.reply());
      }
    }
    checkInvariants(command);
    return outcome;
  }

  private static boolean pending(Outcome outcome) {
    return outcome.effects().stream().anyMatch(e -> e instanceof Effect.GrantsPending);
  }

  /** Every semaphore's status: value not negative, permits out within its capacity. */
  public void checkInvariants(Object after) {
    Name from = null;
    for (int page = 0; ; page++) {
      if (page > 10_000) {
        throw new AssertionError("list_names does not end after " + page + " pages");
      }
      Result r =
          machine
              .query(new Query.ListNames(Name.ofBytes(new byte[0]), 10_000, from, true))
              .result();
      if (!(r instanceof Result.NameList list)) {
        throw new AssertionError("list_names answered " + r);
      }
      for (Result.SemaphoreStatus s : list.statuses()) {
        check(s, after);
      }
      if (!list.more() || list.names().isEmpty()) {
        return;
      }
      from = list.names().get(list.names().size() - 1);
    }
  }

  private static void check(Result.SemaphoreStatus s, Object after) {
    if (s.value() < 0 || s.owned() < 0 || s.leased() < 0 || s.undelivered() < 0) {
      throw new AssertionError("a negative count in " + s + " after " + after);
    }
    BigInteger out =
        BigInteger.valueOf(s.value())
            .add(BigInteger.valueOf(s.owned()))
            .add(BigInteger.valueOf(s.leased()))
            .add(BigInteger.valueOf(s.undelivered()));
    BigInteger ceiling =
        s.options().hasCapacity() ? BigInteger.valueOf(s.options().capacity()) : LONG_MAX;
    if (out.compareTo(ceiling) > 0) {
      throw new AssertionError("more permits than the capacity in " + s + " after " + after);
    }
  }

  /**
   * Writes the machine's snapshot, reads it back and writes it again: the two must be the same
   * bytes (a restored machine writes what it was read from), and the restored machine is driven
   * from then on.
   */
  public void checkSnapshotRoundTrip() {
    byte[] first = snapshot(machine);
    SemaphoreMachine restored;
    try {
      restored =
          SemaphoreMachine.readSnapshot(
              machine.limits(), new DataInputStream(new ByteArrayInputStream(first)));
    } catch (IOException e) {
      throw new AssertionError("a snapshot the machine wrote does not read back", e);
    }
    byte[] second = snapshot(restored);
    if (!Arrays.equals(first, second)) {
      throw new AssertionError("a restored machine writes another snapshot than it was read from");
    }
    machine = restored;
  }

  /** The snapshot of {@code machine}. */
  public static byte[] snapshot(SemaphoreMachine machine) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      machine.writeSnapshot(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }
}
