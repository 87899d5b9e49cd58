package io.semafor.server.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.core.Name;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a watcher back from a gap is told changed (decision 0041). */
class ChangeRingTest {
  private static final Name A = Name.of("printers/a");
  private static final Name B = Name.of("printers/b");
  private static final Name C = Name.of("scanners/c");

  private final ChangeRing ring = new ChangeRing(5, 10);

  @Test
  void eachNameChangedSinceARevisionComesOnceWithItsLastChangeInThatOrder() {
    ring.record(11, List.of(A, B));
    ring.record(12, List.of(A));
    ring.record(13, List.of(C));

    assertThat(ring.since(10, n -> true))
        .containsExactly(
            new ChangeRing.Change(11, B),
            new ChangeRing.Change(12, A),
            new ChangeRing.Change(13, C));
  }

  @Test
  void changesAtOrBeforeTheRevisionSeenAreLeftOut() {
    ring.record(11, List.of(A, B));
    ring.record(12, List.of(A));

    assertThat(ring.since(11, n -> true)).containsExactly(new ChangeRing.Change(12, A));
    assertThat(ring.since(12, n -> true)).isEmpty();
  }

  @Test
  void onlyNamesTheWatchMatchesAreGiven() {
    ring.record(11, List.of(A, C));
    ring.record(12, List.of(B));

    assertThat(ring.since(10, n -> n.startsWith(Name.of("printers/"))))
        .extracting(ChangeRing.Change::name)
        .containsExactly(A, B);
  }

  @Test
  void aWatcherBehindWhatTheRingStillHoldsIsToldToResync() {
    ring.record(11, List.of(A, B, C)); // five pairs fit
    ring.record(12, List.of(A, B));
    ring.record(13, List.of(C)); // drops (11, A): revision 11 is no longer whole

    assertThat(ring.covers(10)).isFalse();
    assertThat(ring.covers(11)).isTrue();
    assertThatThrownBy(() -> ring.since(10, n -> true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("changes after 10 are gone");
    assertThat(ring.since(11, n -> true))
        .containsExactly(
            new ChangeRing.Change(12, A),
            new ChangeRing.Change(12, B),
            new ChangeRing.Change(13, C));
  }

  @Test
  void aRingResetAtARevisionKnowsNothingBeforeIt() {
    ring.record(11, List.of(A));
    ring.reset(40); // a snapshot installed at 40

    assertThat(ring.covers(11)).isFalse();
    assertThat(ring.covers(40)).isTrue();
    assertThat(ring.since(40, n -> true)).isEmpty();
  }

  @Test
  void aRevisionBeforeOneRecordedIsRefused() {
    ring.record(12, List.of(A));

    assertThatThrownBy(() -> ring.record(11, List.of(B)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("revision 11 is before the last recorded 12");
  }
}
