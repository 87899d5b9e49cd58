package io.semafor.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Deadlines on a clock whose readings may be negative, as {@code System.nanoTime()}'s may. */
class DeadlinesTest {
  private static final long NEGATIVE = -Long.MAX_VALUE / 2;

  @Test
  void noDeadlineNeverPassesEvenOnANegativeClock() {
    // now - Long.MAX_VALUE overflows to a positive number when now is negative
    assertThat(Deadlines.passed(NEGATIVE, Deadlines.NONE)).isFalse();
    assertThat(Deadlines.passed(Long.MAX_VALUE - 1, Deadlines.NONE)).isFalse();
  }

  @Test
  void aDeadlinePassesWhenTheClockReachesItWhereverItsOrigin() {
    assertThat(Deadlines.passed(NEGATIVE, NEGATIVE + 1)).isFalse();
    assertThat(Deadlines.passed(NEGATIVE + 1, NEGATIVE + 1)).isTrue();
    assertThat(Deadlines.passed(5, 3)).isTrue();
  }

  @Test
  void theWaitLeftIsCappedAndNeverNegativeForNoDeadline() {
    assertThat(Deadlines.remaining(NEGATIVE, Deadlines.NONE, 100)).isEqualTo(100);
    assertThat(Deadlines.remaining(NEGATIVE, NEGATIVE + 40, 100)).isEqualTo(40);
    assertThat(Deadlines.remaining(NEGATIVE, NEGATIVE + 400, 100)).isEqualTo(100);
  }
}
