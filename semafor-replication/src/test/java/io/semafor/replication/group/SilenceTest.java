package io.semafor.replication.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SilenceTest {
  private static final Duration ELECTION = Duration.ofMillis(300);

  @Test
  void aMemberHeardWithinASecondIsReachableWhateverAShortElectionTimeoutSays() {
    assertThat(Silence.unreachable(1000L, 60_000, ELECTION)).isFalse();
    assertThat(Silence.unreachable(1001L, 60_000, ELECTION)).isTrue();
  }

  @Test
  void aLongerElectionTimeoutIsTheLimit() {
    assertThat(Silence.unreachable(4999L, 60_000, Duration.ofSeconds(5))).isFalse();
    assertThat(Silence.unreachable(5001L, 60_000, Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void aMemberNeverHeardFromIsUnreachableOnceTheLeaderHasRunPastTheLimit() {
    assertThat(Silence.unreachable(null, 900, ELECTION)).isFalse();
    assertThat(Silence.unreachable(null, 1500, ELECTION)).isTrue();
  }
}
