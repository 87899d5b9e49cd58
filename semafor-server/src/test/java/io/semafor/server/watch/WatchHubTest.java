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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a watcher is told, live and after a gap (decision 0041). */
class WatchHubTest {
  private static final Name PRINTER = Name.of("printers/a");
  private static final Name PRINTER_B = Name.of("printers/b");
  private static final Name SCANNER = Name.of("scanners/c");

  private final SemaphoreMachine machine = new SemaphoreMachine(Limits.DEFAULT);
  private final StateReader state = StateReader.of(machine);
  private final WatchHub hub = new WatchHub(8, 0);
  private final Recorder client = new Recorder();
  private long revision;
  private long requestId;
  private long session;

  /** A subscriber that keeps every event, and keeps up while told to. */
  static final class Recorder implements WatchHub.Subscriber {
    final List<WatchEvent> events = new ArrayList<>();
    boolean keepingUp = true;

    /** Events it takes before it stops keeping up (as a connection's share of a batch). */
    int room = Integer.MAX_VALUE;

    @Override
    public boolean keepingUp() {
      return keepingUp && room > 0;
    }

    @Override
    public void deliver(WatchEvent event) {
      events.add(event);
      room--;
    }

    List<String> said() {
      List<String> out = new ArrayList<>();
      for (WatchEvent e : events) {
        out.add(text(e));
      }
      return out;
    }
  }

  static String text(WatchEvent e) {
    if (e instanceof WatchEvent.Changed c) {
      long value =
          c.state() instanceof Result.SemaphoreDetail d
              ? d.status().value()
              : ((Result.SemaphoreStatus) c.state()).value();
      return "changed " + c.name() + "=" + value + " @" + c.revision();
    }
    if (e instanceof WatchEvent.Deleted d) {
      return "deleted " + d.name() + " @" + d.revision();
    }
    if (e instanceof WatchEvent.Resync r) {
      return "resync @" + r.revision();
    }
    return "synced @" + e.revision();
  }

  private WatchHub.Watch watch(Name name, boolean prefix) {
    return new WatchHub.Watch(client, 1, name, prefix, 100, false);
  }

  private void apply(Command command) {
    Outcome o = machine.apply(++revision, revision * 1_000_000L, command);
    hub.applied(o.revision(), o.changed(), state);
  }

  private void open() {
    apply(new Command.OpenSession(60_000_000_000L, ClientInfo.NONE));
    session = 1;
  }

  private void request(Operation op) {
    apply(new Command.Request(session, ++requestId, List.of(), op));
  }

  private void create(Name name, long value) {
    request(new Operation.Create(name, value, SemaphoreOptions.DEFAULT));
  }

  @Test
  void aNewWatchIsToldTheCurrentStateThenSynced() {
    open();
    create(PRINTER, 2);

    hub.start(watch(PRINTER, false), 0, state);

    assertThat(client.said()).containsExactly("changed \"printers/a\"=2 @2", "synced @2");
  }

  @Test
  void everyChangeOfAWatchedSemaphoreIsToldWithTheRevisionThatMadeIt() {
    open();
    create(PRINTER, 2);
    hub.start(watch(PRINTER, false), 0, state);
    client.events.clear();

    request(new Operation.Increment(PRINTER, 1));
    request(new Operation.Increment(SCANNER, 1)); // no such semaphore: changes nothing
    request(new Operation.SetValue(PRINTER, 7));

    assertThat(client.said())
        .containsExactly("changed \"printers/a\"=3 @3", "changed \"printers/a\"=7 @5");
  }

  @Test
  void aPrefixWatchIsToldOfSemaphoresCreatedUnderItAndOfNoOthers() {
    open();
    hub.start(watch(Name.of("printers/"), true), 0, state);
    client.events.clear();

    create(PRINTER_B, 1);
    create(SCANNER, 1);
    request(new Operation.Delete(PRINTER_B));

    assertThat(client.said())
        .containsExactly("changed \"printers/b\"=1 @2", "deleted \"printers/b\" @4");
  }

  @Test
  void aWatcherBackAfterAGapIsToldEachChangedSemaphoreOnceAtItsLatestState() {
    open();
    create(PRINTER, 1);
    create(PRINTER_B, 1);
    create(SCANNER, 1);
    long seen = revision;
    request(new Operation.Increment(PRINTER, 1));
    request(new Operation.Increment(PRINTER_B, 1));
    request(new Operation.Increment(PRINTER, 1));
    request(new Operation.Increment(SCANNER, 1));

    hub.start(watch(Name.of("printers/"), true), seen, state);

    assertThat(client.said())
        .containsExactly("changed \"printers/b\"=2 @6", "changed \"printers/a\"=3 @7", "synced @8");
  }

  @Test
  void aWatcherBehindWhatTheNodeRemembersIsResyncedWithEveryState() {
    open();
    create(PRINTER, 1);
    for (int i = 0; i < 10; i++) { // more changes than the ring's 8
      request(new Operation.Increment(SCANNER, 1));
      create(Name.of("scanners/" + i), 1);
    }

    hub.start(watch(PRINTER, false), 2, state);

    assertThat(client.said())
        .containsExactly("resync @22", "changed \"printers/a\"=1 @22", "synced @22");
  }

  @Test
  void aWatcherThatCannotKeepUpIsLeftBehindAndCaughtUpWithoutRepeats() {
    open();
    create(PRINTER, 1);
    WatchHub.Watch w = watch(PRINTER, false);
    hub.start(w, 0, state);
    client.events.clear();

    request(new Operation.Increment(PRINTER, 1)); // told
    client.keepingUp = false;
    request(new Operation.Increment(PRINTER, 1)); // left behind here
    request(new Operation.Increment(PRINTER, 1));
    assertThat(hub.isBehind(w)).isTrue();
    client.keepingUp = true;
    request(new Operation.Increment(PRINTER, 1)); // still behind: not told live
    hub.catchUp(w, state);

    assertThat(client.said())
        .containsExactly("changed \"printers/a\"=2 @3", "changed \"printers/a\"=5 @6", "synced @6");
    assertThat(hub.isBehind(w)).isFalse();
  }

  @Test
  void aWatcherResumingAfterARevisionThisNodeNeverAppliedIsResynced() {
    open();
    create(PRINTER, 1);
    WatchHub.Watch w = watch(PRINTER, false);

    // it saw revision 40 of another history (a node restarted without its data): this one is at 2
    hub.start(w, 40, state);
    request(new Operation.Increment(PRINTER, 1));

    assertThat(client.said())
        .containsExactly(
            "resync @2", "changed \"printers/a\"=1 @2", "synced @2", "changed \"printers/a\"=2 @3");
  }

  @Test
  void aSummaryWatchIsToldTheStatusAlone() {
    open();
    create(PRINTER, 3);

    hub.start(new WatchHub.Watch(client, 9, PRINTER, false, 100, true), 0, state);

    assertThat(client.events.get(0))
        .isInstanceOfSatisfying(
            WatchEvent.Changed.class,
            c -> assertThat(c.state()).isInstanceOf(Result.SemaphoreStatus.class));
  }

  @Test
  void aStoppedWatchIsToldNothingMore() {
    open();
    create(PRINTER, 1);
    hub.start(watch(PRINTER, false), 0, state);
    client.events.clear();

    assertThat(hub.stopAll(client)).isEqualTo(1);
    request(new Operation.Increment(PRINTER, 1));

    assertThat(client.events).isEmpty();
    assertThat(hub.watches()).isZero();
  }

  @Test
  void aRestoredStateSendsEveryWatcherBackThroughAResync() {
    open();
    create(PRINTER, 1);
    WatchHub.Watch w = watch(PRINTER, false);
    hub.start(w, 0, state);
    client.events.clear();

    // a snapshot installed: the state jumps two commands on, which the hub never saw applied
    for (int i = 0; i < 2; i++) {
      machine.apply(
          ++revision,
          revision * 1_000_000L,
          new Command.Request(
              session, ++requestId, List.of(), new Operation.Increment(PRINTER, 1)));
    }
    hub.restored(revision);
    hub.catchUp(w, state);

    assertThat(client.said())
        .containsExactly("resync @4", "changed \"printers/a\"=3 @4", "synced @4");
  }

  @Test
  void aHeartbeatTellsAWatchThatKeepsUpItIsSyncedAtTheLastRevision() {
    open();
    create(PRINTER, 1);
    hub.start(watch(PRINTER, false), 0, state);
    create(SCANNER, 1); // another name: nothing to tell this watch
    client.events.clear();

    hub.heartbeat(state);

    assertThat(client.said()).containsExactly("synced @3");
  }

  @Test
  void aHeartbeatLeavesBehindAWatchThatCannotTakeIt() {
    open();
    create(PRINTER, 1);
    WatchHub.Watch w = watch(PRINTER, false);
    hub.start(w, 0, state);
    client.events.clear();
    client.keepingUp = false;

    hub.heartbeat(state);

    assertThat(client.events).isEmpty();
    assertThat(hub.isBehind(w)).isTrue();
  }

  private void createUnderPrinters(int count) {
    for (int i = 0; i < count; i++) {
      create(Name.of(String.format("printers/%02d", i)), 1);
    }
  }

  @Test
  void aLargeStartIsSentInTurnsOfWhatTheSubscriberTakesAndSyncedOnlyAtTheEnd() {
    open();
    createUnderPrinters(10);
    WatchHub.Watch w = watch(Name.of("printers/"), true);
    client.room = 4;

    hub.start(w, 0, state);
    assertThat(client.said()).hasSize(4).noneMatch(e -> e.startsWith("synced"));
    assertThat(hub.isBehind(w)).isTrue();
    client.room = 4;
    hub.catchUp(w, state);
    client.room = 4;
    hub.catchUp(w, state);

    List<String> said = client.said();
    assertThat(said.subList(0, 10))
        .allMatch(e -> e.startsWith("changed \"printers/"))
        .doesNotHaveDuplicates();
    assertThat(said).hasSize(11).last().isEqualTo("synced @11");
    assertThat(hub.isBehind(w)).isFalse();
  }

  @Test
  void aSemaphoreAlreadySentThatChangesWhileTheStartIsPausedIsToldAgainAtItsLatestState() {
    open();
    createUnderPrinters(6);
    WatchHub.Watch w = watch(Name.of("printers/"), true);
    client.room = 3;
    hub.start(w, 0, state); // printers/00..02 sent, as of revision 7
    request(new Operation.Increment(Name.of("printers/01"), 5)); // sent already: told again
    request(new Operation.Increment(Name.of("printers/04"), 5)); // not yet: listed with it
    client.room = Integer.MAX_VALUE;

    hub.catchUp(w, state);

    assertThat(client.said())
        .containsExactly(
            "changed \"printers/00\"=1 @7",
            "changed \"printers/01\"=1 @7",
            "changed \"printers/02\"=1 @7",
            "changed \"printers/01\"=6 @8",
            "changed \"printers/03\"=1 @9",
            "changed \"printers/04\"=6 @9",
            "changed \"printers/05\"=1 @9",
            "synced @9");
  }

  @Test
  void aStartPausedLongerThanTheNodeRemembersStartsAgainWithAResync() {
    open();
    create(SCANNER, 0);
    createUnderPrinters(4);
    WatchHub.Watch w = watch(Name.of("printers/"), true);
    client.room = 2;
    hub.start(w, 0, state);
    for (int i = 0; i < 10; i++) { // more changes than the ring's 8
      request(new Operation.Increment(SCANNER, 1));
    }
    client.room = Integer.MAX_VALUE;
    client.events.clear();

    hub.catchUp(w, state);

    assertThat(client.said())
        .containsExactly(
            "resync @16",
            "changed \"printers/00\"=1 @16",
            "changed \"printers/01\"=1 @16",
            "changed \"printers/02\"=1 @16",
            "changed \"printers/03\"=1 @16",
            "synced @16");
  }

  @Test
  void aCatchUpAfterAGapStopsAtARevisionBoundaryWhenTheSubscriberIsFull() {
    open();
    createUnderPrinters(4);
    WatchHub.Watch w = watch(Name.of("printers/"), true);
    hub.start(w, 0, state);
    client.keepingUp = false;
    request(new Operation.Increment(Name.of("printers/00"), 1)); // left behind from here
    request(new Operation.Increment(Name.of("printers/01"), 1));
    request(new Operation.Increment(Name.of("printers/02"), 1));
    client.keepingUp = true;
    client.events.clear();
    client.room = 2;

    hub.catchUp(w, state);
    assertThat(client.said())
        .containsExactly("changed \"printers/00\"=2 @6", "changed \"printers/01\"=2 @7");
    client.room = Integer.MAX_VALUE;
    hub.catchUp(w, state);

    assertThat(client.said())
        .containsExactly(
            "changed \"printers/00\"=2 @6",
            "changed \"printers/01\"=2 @7",
            "changed \"printers/02\"=2 @8",
            "synced @8");
  }

  @Test
  void aStartPausedWhenTheStateIsReplacedIsListedAfreshAfterAResync() {
    open();
    createUnderPrinters(4);
    WatchHub.Watch w = watch(Name.of("printers/"), true);
    client.room = 2;
    hub.start(w, 0, state); // printers/00 and 01 sent
    hub.restored(revision); // a snapshot installed: what was sent is of the replaced history
    client.room = Integer.MAX_VALUE;
    client.events.clear();

    hub.catchUp(w, state);

    assertThat(client.said())
        .containsExactly(
            "resync @5",
            "changed \"printers/00\"=1 @5",
            "changed \"printers/01\"=1 @5",
            "changed \"printers/02\"=1 @5",
            "changed \"printers/03\"=1 @5",
            "synced @5");
  }
}
