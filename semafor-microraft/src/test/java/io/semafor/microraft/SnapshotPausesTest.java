package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a member says of snapshots that hold its thread. */
class SnapshotPausesTest {
  private final SnapshotPauses pauses = new SnapshotPauses(Duration.ofMillis(300));

  @Test
  void aSnapshotWithinAThirdOfTheElectionTimeoutIsCountedQuietly() {
    assertThat(pauses.taken(Duration.ofMillis(100).toNanos())).isNull();
    assertThat(pauses.count()).isEqualTo(1);
    assertThat(pauses.lastSeconds()).isEqualTo(0.1);
  }

  @Test
  void aLongerSnapshotIsWarnedOfWithTheTimeoutToSet() {
    String warning = pauses.taken(Duration.ofMillis(900).toNanos());
    assertThat(warning)
        .startsWith(
            "a snapshot held this member's thread 900 ms, more than a third of the election")
        .contains("at least three times the longest snapshot (about 3s)")
        .contains("microraft.snapshot-every");
  }

  @Test
  void theWarningIsGivenOncePerMember() {
    assertThat(pauses.taken(Duration.ofSeconds(1).toNanos())).isNotNull();
    assertThat(pauses.taken(Duration.ofSeconds(2).toNanos())).isNull();
    assertThat(pauses.longestSeconds()).isEqualTo(2.0);
    assertThat(pauses.lastSeconds()).isEqualTo(2.0);
    assertThat(pauses.count()).isEqualTo(2);
  }
}
