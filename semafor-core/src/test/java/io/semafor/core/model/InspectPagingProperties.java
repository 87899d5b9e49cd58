package io.semafor.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.jspecify.annotations.Nullable;

/**
 * Paging under change (docs/semantics.md#reads): a reader follows one semaphore's inspection pages,
 * one page per command, while random scripts change everything between pages (waiters served,
 * cancelled, timed out, sessions expiring, semaphores deleted). Within each list the entries it is
 * shown come in key order, none twice, and every entry present at every page it read was shown.
 */
class InspectPagingProperties {
  @Provide
  Arbitrary<List<Action>> scripts() {
    return Scripts.scripts(40, 250);
  }

  @Property(edgeCases = net.jqwik.api.EdgeCasesMode.NONE)
  void anEntryThatStaysIsShownOnceInKeyOrderWhateverChangesBetweenPages(
      @ForAll("scripts") List<Action> script, @ForAll @IntRange(min = 1, max = 3) int limit) {
    SemaphoreMachine machine = new SemaphoreMachine(MachineMatchesModelProperties.LIMITS);
    Driver driver = new Driver(true);
    Map<Name, Reader> readers = new HashMap<>();
    for (Name name : Driver.NAMES) {
      readers.put(name, new Reader(name, limit));
    }
    int step = 0;
    for (Command command : driver.setup()) {
      driver.observe(command, machine.apply(driver.nextRevision(), driver.now(), command));
    }
    for (Action action : script) {
      Command command = driver.next(action);
      if (command == null) {
        continue;
      }
      driver.observe(command, machine.apply(driver.nextRevision(), driver.now(), command));
      step++;
      for (Reader reader : readers.values()) {
        reader.readOnePage(machine, step);
      }
    }
  }

  /** A reader paging through one semaphore, starting a new pass when the previous one ends. */
  private static final class Reader {
    private final Name name;
    private final int limit;
    private Query.Position from = Query.Position.START;
    private Pass<Result.WaiterView> queue = new Pass<>(Result.WaiterView::sequence);
    private Pass<Result.HolderView> holders = new Pass<>(Result.HolderView::sessionId);
    private Pass<Result.LeaseView> leases = new Pass<>(Result.LeaseView::permitId);

    Reader(Name name, int limit) {
      this.name = name;
      this.limit = limit;
    }

    void readOnePage(SemaphoreMachine machine, int step) {
      Result now =
          machine
              .query(new Query.Inspect(name, Query.Inspect.MAX_LIMIT, Query.Position.START, 0))
              .result();
      if (!(now instanceof Result.SemaphoreDetail whole)) {
        restart(); // deleted: a re-created semaphore is another one
        return;
      }
      assertThat(whole.complete()).as("the scripts' states fit in one page").isTrue();
      Result.SemaphoreDetail page =
          (Result.SemaphoreDetail) machine.query(new Query.Inspect(name, limit, from, 0)).result();
      String at = name + " at step " + step;
      queue.read(whole.queue(), page.queue(), page.queueMore(), at);
      holders.read(whole.holders(), page.holders(), page.holdersMore(), at);
      leases.read(whole.leases(), page.leases(), page.leasesMore(), at);
      from = page.next();
      if (queue.done && holders.done && leases.done) {
        queue.check(name + " queue, pass ending at step " + step);
        holders.check(name + " holders, pass ending at step " + step);
        leases.check(name + " leases, pass ending at step " + step);
        restart();
      }
    }

    private void restart() {
      from = Query.Position.START;
      queue = new Pass<>(Result.WaiterView::sequence);
      holders = new Pass<>(Result.HolderView::sessionId);
      leases = new Pass<>(Result.LeaseView::permitId);
    }
  }

  /** One list's entries seen during one pass, by key. */
  private static final class Pass<T> {
    private final Function<T, Long> key;
    private final List<Long> shown = new ArrayList<>();
    private final Set<Long> everPresent = new HashSet<>();
    private @Nullable Set<Long> alwaysPresent;
    boolean done;

    Pass(Function<T, Long> key) {
      this.key = key;
    }

    void read(List<T> present, List<T> page, boolean more, String at) {
      if (done) {
        return; // a reader stops taking a list once it said it had no more
      }
      Set<Long> now = new HashSet<>();
      for (T entry : present) {
        now.add(key.apply(entry));
      }
      everPresent.addAll(now);
      Set<Long> always = alwaysPresent;
      if (always == null) {
        alwaysPresent = new HashSet<>(now);
      } else {
        always.retainAll(now);
      }
      for (T entry : page) {
        // a page shows entries as they are at the moment it is read
        if (!present.contains(entry)) {
          throw new AssertionError("page entry " + entry + " at " + at + " is not in " + present);
        }
        shown.add(key.apply(entry));
      }
      done = !more;
    }

    void check(String what) {
      for (int i = 1; i < shown.size(); i++) {
        assertThat(shown.get(i))
            .as("%s in key order: %s", what, shown)
            .isGreaterThan(shown.get(i - 1));
      }
      Set<Long> always = alwaysPresent;
      assertThat(shown)
          .as("%s: every entry present throughout", what)
          .containsAll(always == null ? Set.of() : always);
      assertThat(everPresent).as("%s: nothing invented", what).containsAll(shown);
    }
  }
}
