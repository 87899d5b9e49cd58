package io.semafor.server.watch;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever the gaps — a subscriber that stops keeping up and is caught up later, at any moment — a
 * prefix watch's events, applied in order to a view, give the machine's state; no (name, revision)
 * is told twice between resyncs; revisions never go back (decision 0041).
 */
class WatchHubProperties {
  private static final List<Name> NAMES =
      List.of(Name.of("p/a"), Name.of("p/b"), Name.of("p/c"), Name.of("q/d"));

  /** One step: an operation on a name, or the subscriber's state changing. */
  record Step(int kind, int name, int amount) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Arbitraries.integers()
        .between(0, 7)
        .flatMap(
            kind ->
                Arbitraries.integers()
                    .between(0, NAMES.size() - 1)
                    .flatMap(
                        name ->
                            Arbitraries.integers()
                                .between(1, 3)
                                .map(amount -> new Step(kind, name, amount))))
        .list()
        .ofMinSize(1)
        .ofMaxSize(120);
  }

  @Property(edgeCases = EdgeCasesMode.NONE)
  void aPrefixWatchsEventsRebuildTheStateWithoutRepeatsWhateverTheGaps(
      @ForAll("steps") List<Step> steps) {
    SemaphoreMachine machine = new SemaphoreMachine(Limits.DEFAULT);
    StateReader state = StateReader.of(machine);
    WatchHub hub = new WatchHub(16, 0); // small: some gaps outrun it
    WatchHubTest.Recorder client = new WatchHubTest.Recorder();
    long[] revision = {0};
    long[] requestId = {0};
    java.util.function.Consumer<Command> run =
        c -> {
          Outcome o = machine.apply(++revision[0], revision[0] * 1_000_000L, c);
          hub.applied(o.revision(), o.changed(), state);
        };
    run.accept(new Command.OpenSession(3_600_000_000_000L, ClientInfo.NONE));
    WatchHub.Watch watch = new WatchHub.Watch(client, 1, Name.of("p/"), true, 10, false);
    hub.start(watch, 0, state);
    for (Step s : steps) {
      Name name = NAMES.get(s.name());
      switch (s.kind()) {
        case 0, 1 ->
            run.accept(
                new Command.Request(
                    1,
                    ++requestId[0],
                    List.of(),
                    new Operation.Create(name, s.amount(), SemaphoreOptions.DEFAULT)));
        case 2, 3 ->
            run.accept(
                new Command.Request(
                    1, ++requestId[0], List.of(), new Operation.Increment(name, s.amount())));
        case 4 ->
            run.accept(
                new Command.Request(1, ++requestId[0], List.of(), new Operation.Delete(name)));
        case 5 -> client.keepingUp = false;
        case 6 -> client.keepingUp = true;
        default -> {
          client.keepingUp = true;
          hub.catchUp(watch, state);
        }
      }
    }
    client.keepingUp = true;
    hub.catchUp(watch, state);

    Map<Name, Long> view = new TreeMap<>(java.util.Comparator.comparing(Name::toString));
    Set<String> told = new HashSet<>();
    long last = 0;
    for (WatchEvent e : client.events) {
      assertThat(e.revision()).as("revisions never go back: %s", e).isGreaterThanOrEqualTo(last);
      last = e.revision();
      if (e instanceof WatchEvent.Resync) {
        view.clear();
        told.clear();
      } else if (e instanceof WatchEvent.Changed c) {
        assertThat(told.add(c.name() + "@" + c.revision())).as("told twice: %s", e).isTrue();
        view.put(c.name(), ((Result.SemaphoreDetail) c.state()).status().value());
      } else if (e instanceof WatchEvent.Deleted d) {
        assertThat(told.add(d.name() + "@" + d.revision())).as("told twice: %s", e).isTrue();
        view.remove(d.name());
      }
    }
    Map<Name, Long> actual = new TreeMap<>(java.util.Comparator.comparing(Name::toString));
    for (Name n : NAMES) {
      Result r = state.state(n, 10, true);
      if (n.startsWith(Name.of("p/")) && r instanceof Result.SemaphoreStatus st) {
        actual.put(n, st.value());
      }
    }
    assertThat(view).isEqualTo(actual);
    assertThat(hub.isBehind(watch)).isFalse();
  }
}
