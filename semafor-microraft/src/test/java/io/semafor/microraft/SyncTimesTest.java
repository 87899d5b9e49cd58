package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The log's sync times as the metrics read them. */
class SyncTimesTest {
  @Test
  void noSyncReadsAsZero() {
    SyncTimes times = new SyncTimes();

    assertThat(times.count()).isZero();
    assertThat(times.quantileSeconds(0.99)).isZero();
  }

  @Test
  void quantilesAreNearestRankOverTheSyncsKept() {
    SyncTimes times = new SyncTimes();
    for (int ms = 1; ms <= 100; ms++) {
      times.record(ms * 1_000_000L);
    }

    assertThat(times.count()).isEqualTo(100);
    assertThat(times.quantileSeconds(0.5)).isEqualTo(0.050);
    assertThat(times.quantileSeconds(0.99)).isEqualTo(0.099);
    assertThat(times.quantileSeconds(1)).isEqualTo(0.100);
  }

  @Test
  void onlyTheLatestSyncsCountForQuantilesButEveryOneForTheCount() {
    SyncTimes times = new SyncTimes();
    for (int i = 0; i < SyncTimes.KEPT; i++) {
      times.record(1_000_000_000L); // a second each, long ago
    }
    for (int i = 0; i < SyncTimes.KEPT; i++) {
      times.record(1_000_000L);
    }

    assertThat(times.count()).isEqualTo(2L * SyncTimes.KEPT);
    assertThat(times.quantileSeconds(1)).isEqualTo(0.001);
  }
}
