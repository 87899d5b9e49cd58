package io.semafor.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.core.SemopOp;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.jspecify.annotations.Nullable;

/**
 * What must hold after every command, whatever the commands were (docs/semantics.md#capacity and
 * #conservation):
 *
 * <ul>
 *   <li>no value is negative, and {@code value + owned + leased + undelivered} never exceeds the
 *       ceiling, so no grant ever exceeded what was available;
 *   <li>conservation: {@code value + adjustments + leased + undelivered} of each semaphore changes
 *       only by increments, sets, non-owned adds, and non-owned grants the client acknowledged
 *       (consumed) — returns, undo, expiries and lease ends move permits, never make or lose them.
 * </ul>
 *
 * Conservation is checked with scripts that make no owned {@code semop} adds: those create a
 * negative SysV adjustment whose undo is clamped at 0 by design, which is covered by the model
 * property instead.
 */
class InvariantProperties {
  private static final Limits LIMITS = MachineMatchesModelProperties.LIMITS;
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  @Provide
  Arbitrary<List<Action>> scripts() {
    return Scripts.scripts(40, 250);
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void noValueIsNegativeOrPastItsCeiling(@ForAll("scripts") List<Action> script) {
    run(
        script,
        true,
        (command, outcome, machine) -> {
          for (Name name : Driver.NAMES) {
            Result.SemaphoreStatus s = status(machine, name);
            if (s == null) {
              continue;
            }
            assertThat(s.value()).as("value of %s after %s", name, command).isNotNegative();
            BigInteger held =
                BigInteger.valueOf(s.value())
                    .add(BigInteger.valueOf(s.owned()))
                    .add(BigInteger.valueOf(s.leased()))
                    .add(BigInteger.valueOf(s.undelivered()));
            BigInteger ceiling =
                s.options().hasCapacity() ? BigInteger.valueOf(s.options().capacity()) : MAX;
            assertThat(held).as("%s after %s", s, command).isLessThanOrEqualTo(ceiling);
            assertThat(s.undelivered()).isNotNegative();
          }
        });
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void permitsAreNeitherMadeNorLost(@ForAll("scripts") List<Action> script) {
    Ledger ledger = new Ledger();
    run(script, false, ledger::check);
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void aFailedRequestChangesNothing(@ForAll("scripts") List<Action> script) {
    SemaphoreMachine machine = new SemaphoreMachine(LIMITS);
    Driver driver = new Driver(true);
    List<Command> commands = new ArrayList<>(driver.setup());
    List<Action> actions = new ArrayList<>(script);
    int failures = 0;
    for (int i = 0; i < commands.size() + actions.size(); i++) {
      Command command =
          i < commands.size() ? commands.get(i) : driver.next(actions.get(i - commands.size()));
      if (command == null) {
        continue;
      }
      List<Object> before = observable(machine);
      Outcome outcome = machine.apply(driver.nextRevision(), driver.now(), command);
      Reply reply = outcome.reply();
      if (command instanceof Command.Request r
          && r.acks().isEmpty()
          && reply != null
          && reply.revision() == outcome.revision()
          && reply.result() instanceof Result.Failure) {
        assertThat(outcome.effects()).as("effects of failed %s", command).isEmpty();
        assertThat(observable(machine)).as("state after failed %s", command).isEqualTo(before);
        failures++;
      }
      driver.observe(command, outcome);
    }
    net.jqwik.api.statistics.Statistics.collect(failures > 0 ? "failures seen" : "no failure");
  }

  /** Everything about the semaphores, leases and timers that a client or the edge can see. */
  private static List<Object> observable(SemaphoreMachine machine) {
    List<Object> out = new ArrayList<>();
    for (Name name : Driver.NAMES) {
      out.add(machine.query(new Query.Inspect(name)).result());
    }
    out.add(machine.timers());
    out.add(machine.sessions());
    out.add(machine.semaphoreCount());
    return out;
  }

  interface Check {
    void after(Command command, Outcome outcome, SemaphoreMachine machine);
  }

  private static void run(List<Action> script, boolean ownedAdds, Check check) {
    SemaphoreMachine machine = new SemaphoreMachine(LIMITS);
    Driver driver = new Driver(ownedAdds);
    List<Command> commands = new ArrayList<>(driver.setup());
    for (Command command : commands) {
      Outcome outcome = machine.apply(driver.nextRevision(), driver.now(), command);
      check.after(command, outcome, machine);
      driver.observe(command, outcome);
    }
    for (Action action : script) {
      Command command = driver.next(action);
      if (command != null) {
        Outcome outcome = machine.apply(driver.nextRevision(), driver.now(), command);
        check.after(command, outcome, machine);
        driver.observe(command, outcome);
      }
    }
  }

  static Result.@Nullable SemaphoreStatus status(SemaphoreMachine machine, Name name) {
    Result r = machine.query(new Query.Get(name)).result();
    return r instanceof Result.SemaphoreStatus s ? s : null;
  }

  /**
   * Follows each semaphore's total from outside, as a client could: what it was created with, plus
   * what was put in, minus what clients acknowledged taking for good.
   */
  static final class Ledger {
    /** Total per live name, and the revision its current incarnation was created at. */
    private final Map<Name, Long> expected = new HashMap<>();

    private final Map<Name, Long> createdAt = new HashMap<>();

    /** Per session and request id: what an unacknowledged reply takes away for good once acked. */
    private final Map<Long, Map<Long, List<Take>>> consumable = new HashMap<>();

    /** The operation of every request sent, to read replies against. */
    private final Map<Long, Map<Long, Operation>> sent = new HashMap<>();

    record Take(Name name, long amount, long revision) {}

    void check(Command command, Outcome outcome, SemaphoreMachine machine) {
      if (command instanceof Command.Request r) {
        sent.computeIfAbsent(r.sessionId(), k -> new HashMap<>())
            .putIfAbsent(r.requestId(), r.operation());
      }
      List<Long> acks =
          command instanceof Command.Request r
              ? r.acks()
              : command instanceof Command.Acknowledge a ? a.acks() : List.of();
      long sessionId =
          command instanceof Command.Request r
              ? r.sessionId()
              : command instanceof Command.Acknowledge a ? a.sessionId() : 0;
      boolean live =
          machine.sessions().stream().anyMatch(s -> s.sessionId() == sessionId)
              || endedNow(outcome, sessionId);
      if (live) {
        Map<Long, List<Take>> mine = consumable.getOrDefault(sessionId, new HashMap<>());
        for (long id : acks) {
          List<Take> takes = mine.get(id);
          if (takes != null) {
            for (Take t : takes) {
              Long created = createdAt.get(t.name());
              if (created != null && t.revision() >= created) {
                expected.merge(t.name(), -t.amount(), Long::sum);
              }
            }
            mine.remove(id);
          }
        }
      }
      Reply reply = outcome.reply();
      if (reply != null && reply.revision() == outcome.revision()) {
        learn(reply); // a retried request's kept reply was counted when it was made
      }
      for (Effect e : outcome.effects()) {
        if (e instanceof Effect.Complete c) {
          learn(c.reply());
        }
        if (e instanceof Effect.SessionEnded ended) {
          consumable.remove(ended.sessionId()); // what it never acknowledged went back
        }
      }
      for (Name name : Driver.NAMES) {
        Result.SemaphoreStatus s = status(machine, name);
        if (s == null) {
          expected.remove(name);
          createdAt.remove(name);
          continue;
        }
        Result.SemaphoreDetail d =
            (Result.SemaphoreDetail) machine.query(new Query.Inspect(name)).result();
        long adjustments = 0;
        for (Result.HolderView h : d.holders()) {
          adjustments += h.owned();
        }
        long total = s.value() + adjustments + s.leased() + s.undelivered();
        assertThat(total)
            .as("total of %s after %s (outcome %s)", name, command, outcome)
            .isEqualTo(expected.get(name));
      }
    }

    private static boolean endedNow(Outcome outcome, long sessionId) {
      return outcome.effects().contains(new Effect.SessionEnded(sessionId));
    }

    /** Updates the expected totals from one reply. */
    private void learn(Reply reply) {
      Operation op = operationOf(reply);
      Result result = reply.result();
      if (op instanceof Operation.Create c && result instanceof Result.Created created) {
        if (created.created()) {
          expected.put(c.name(), c.initial());
          createdAt.put(c.name(), reply.revision());
        }
      } else if (op instanceof Operation.Increment i && result instanceof Result.Incremented) {
        expected.merge(i.name(), i.amount(), Long::sum);
      } else if (op instanceof Operation.SetValue v && result instanceof Result.ValueSet set) {
        expected.merge(v.name(), v.value() - set.previous(), Long::sum);
      } else if (op instanceof Operation.Decrement d && result instanceof Result.Granted g) {
        consumable(
            reply,
            d.owned() ? List.of() : List.of(new Take(d.name(), g.amount(), reply.revision())));
      } else if (op instanceof Operation.Acquire a && result instanceof Result.Granted g) {
        consumable(
            reply,
            a.owned() ? List.of() : List.of(new Take(a.name(), g.amount(), reply.revision())));
      } else if (op instanceof Operation.Semop s
          && result instanceof Result.SemopDone done
          && done.done()) {
        List<Take> takes = new ArrayList<>();
        for (SemopOp o : s.ops()) {
          if (o.delta() > 0 && !o.owned()) {
            expected.merge(o.name(), o.delta(), Long::sum);
          } else if (o.delta() < 0 && !o.owned()) {
            takes.add(new Take(o.name(), -o.delta(), reply.revision()));
          }
        }
        consumable(reply, takes);
      } else if (result instanceof Result.WaitManyReported reported) {
        List<Take> takes = new ArrayList<>();
        for (Result.Report r : reported.reports()) {
          takes.add(new Take(r.name(), r.granted(), reply.revision()));
        }
        consumable(reply, takes);
      }
    }

    private @Nullable Operation operationOf(Reply reply) {
      Map<Long, Operation> mine = sent.get(reply.sessionId());
      return mine == null ? null : mine.get(reply.requestId());
    }

    private void consumable(Reply reply, List<Take> takes) {
      if (!takes.isEmpty()) {
        consumable
            .computeIfAbsent(reply.sessionId(), k -> new HashMap<>())
            .putIfAbsent(reply.requestId(), takes);
      }
    }
  }
}
