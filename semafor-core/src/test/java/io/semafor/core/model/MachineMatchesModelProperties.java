package io.semafor.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * Random command sequences, sessions expiring and semaphores deleted mid-wait included, applied to
 * the engine and to the naive {@link ReferenceModel}: same replies, same grants in the same order,
 * same timers, same state after every step.
 */
class MachineMatchesModelProperties {
  /** Small limits so that scripts reach them. */
  static final Limits LIMITS = new Limits(1024, 6, 6, 5, 64, 4, 24, 65_536, 1_000_000);

  @Provide
  Arbitrary<List<Action>> scripts() {
    return Scripts.scripts(40, 250);
  }

  @Property(edgeCases = net.jqwik.api.EdgeCasesMode.NONE)
  void theEngineAgreesWithTheReferenceModelAtEveryStep(@ForAll("scripts") List<Action> script) {
    SemaphoreMachine machine = new SemaphoreMachine(LIMITS);
    ReferenceModel model = new ReferenceModel(LIMITS);
    Driver driver = new Driver(true);
    int step = 0;
    for (Command command : driver.setup()) {
      apply(machine, model, driver, command, step++);
    }
    for (Action action : script) {
      Command command = driver.next(action);
      if (command != null) {
        apply(machine, model, driver, command, step++);
      }
    }
    checkCoverage();
  }

  private static void apply(
      SemaphoreMachine machine, ReferenceModel model, Driver driver, Command command, int step) {
    long revision = driver.nextRevision();
    Outcome actual = machine.apply(revision, driver.now(), command);
    Outcome expected = model.apply(revision, driver.now(), command);
    String at = "step " + step + ": " + command;
    assertThat(Equivalence.normalize(actual.reply()))
        .as("reply at %s", at)
        .isEqualTo(Equivalence.normalize(expected.reply()));
    assertThat(Equivalence.completions(actual))
        .as("completions at %s", at)
        .isEqualTo(Equivalence.completions(expected));
    assertThat(new HashSet<>(machine.timers())).as("timers at %s", at).isEqualTo(model.timers());
    assertThat(machine.sessionCount())
        .as("sessions at %s", at)
        .isEqualTo(model.sessionIds().size());
    assertThat(machine.semaphoreCount()).as("semaphores at %s", at).isEqualTo(model.names().size());
    Set<Name> names = new HashSet<>(Driver.NAMES);
    names.addAll(model.names());
    for (Name name : names) {
      assertThat(detail(machine, name)).as("%s at %s", name, at).isEqualTo(model.inspect(name));
    }
    driver.observe(command, actual);
    for (Reply completion : Equivalence.completions(actual)) {
      Statistics.label("completions").collect(kind(completion.result()));
    }
  }

  private static String kind(Result result) {
    return result instanceof Result.Failure f
        ? "Failure " + f.code()
        : result.getClass().getSimpleName();
  }

  /** The generator must keep producing every way a waiting request can end. */
  private static void checkCoverage() {
    Statistics.label("completions")
        .coverage(
            coverage -> {
              for (String kind :
                  List.of(
                      "Granted",
                      "LeaseGranted",
                      "SemopDone",
                      "ZeroReached",
                      "WaitManyReported",
                      "Failure DELETED",
                      "Failure SESSION_EXPIRED",
                      "Failure WOULD_BLOCK")) {
                coverage.check(kind).count(c -> c > 0);
              }
            });
  }

  /** The machine's view of {@code name}, read in pages of two entries per list and joined. */
  private static Result.@Nullable SemaphoreDetail detail(SemaphoreMachine machine, Name name) {
    return Pages.all(machine, name, 2);
  }
}
