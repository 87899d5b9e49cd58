package io.semafor.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every command names, in {@link Outcome#changed}, each semaphore whose state as {@code inspect}
 * shows it differs after the command (created and deleted ones included): watches are told about
 * exactly those names, so a name missing is a change no watcher ever sees.
 */
class ChangedSemaphoresProperties {
  @Provide
  Arbitrary<List<Action>> scripts() {
    return Scripts.scripts(40, 250);
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void everySemaphoreACommandChangesIsNamedInItsOutcome(@ForAll("scripts") List<Action> script) {
    SemaphoreMachine machine = new SemaphoreMachine(MachineMatchesModelProperties.LIMITS);
    Driver driver = new Driver(true);
    driver.drive(
        script,
        command -> {
          Map<Name, Result> before = states(machine);
          Outcome outcome = machine.apply(driver.nextRevision(), driver.now(), command);
          Map<Name, Result> after = states(machine);
          List<Name> differ = new ArrayList<>();
          for (Name name : Driver.NAMES) {
            if (!java.util.Objects.equals(before.get(name), after.get(name))) {
              differ.add(name);
            }
          }
          assertThat(outcome.changed())
              .as("%s: semaphores whose state changed", command)
              .containsAll(differ)
              .doesNotHaveDuplicates();
          return outcome;
        });
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void aRefusedCommandNamesNothing(@ForAll("scripts") List<Action> script) {
    SemaphoreMachine machine = new SemaphoreMachine(MachineMatchesModelProperties.LIMITS);
    Driver driver = new Driver(true);
    driver.drive(
        script,
        command -> {
          Map<Name, Result> before = states(machine);
          Outcome outcome = machine.apply(driver.nextRevision(), driver.now(), command);
          // a refusal's acknowledgements may change what is undelivered: only one carrying none
          boolean plainRefusal =
              isRefusal(outcome) && !(command instanceof Command.Request r && !r.acks().isEmpty());
          if (plainRefusal && before.equals(states(machine))) {
            assertThat(outcome.changed()).as("a refused %s", command).isEmpty();
          }
          return outcome;
        });
  }

  private static boolean isRefusal(Outcome outcome) {
    io.semafor.core.Reply reply = outcome.reply();
    return reply != null && reply.result() instanceof Result.Failure && outcome.effects().isEmpty();
  }

  /** Every name's whole state (all pages in one), or its failure if it names no semaphore. */
  private static Map<Name, Result> states(SemaphoreMachine machine) {
    Map<Name, Result> out = new LinkedHashMap<>();
    for (Name name : Driver.NAMES) {
      out.put(
          name,
          machine
              .query(new Query.Inspect(name, Query.Inspect.MAX_LIMIT, Query.Position.START, 0))
              .result());
    }
    return out;
  }
}
