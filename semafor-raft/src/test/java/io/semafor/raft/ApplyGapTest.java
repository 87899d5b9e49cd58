package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ApplyGap}: stuck only when the next entry to apply has left the log, for the limit. */
class ApplyGapTest {
  private static final long LIMIT = ApplyGap.LIMIT.toNanos();

  private final ApplyGap gap = new ApplyGap();

  @Test
  void aStateMachineBehindTheStartOfItsLogForTheLimitIsStuck() {
    assertThat(gap.stuck(1599, 2400, 2664, 0)).isFalse();
    assertThat(gap.stuck(1599, 2400, 2664, LIMIT - 1)).isFalse();

    assertThat(gap.stuck(1599, 2400, 2664, LIMIT)).isTrue();
  }

  @Test
  void aSnapshotLoadThatEndsWithinTheLimitIsNotStuck() {
    gap.stuck(1599, 2400, 2664, 0);
    gap.stuck(2399, 2400, 2664, LIMIT / 2); // the load ended: the next entry is in the log

    assertThat(gap.stuck(2399, 2400, 2664, 2 * LIMIT)).isFalse();
  }

  @Test
  void anAppliedIndexThatMovesStartsTheLimitAgain() {
    gap.stuck(1599, 2400, 2664, 0);
    gap.stuck(1700, 2400, 2664, LIMIT - 1);

    assertThat(gap.stuck(1700, 2400, 2664, LIMIT)).isFalse();
    assertThat(gap.stuck(1700, 2400, 2664, 2 * LIMIT - 1)).isTrue();
  }

  @Test
  void aStateMachineWithNothingCommittedToApplyIsNotStuck() {
    gap.stuck(2399, 2400, 2399, 0);

    assertThat(gap.stuck(2399, 2400, 2399, 10 * LIMIT)).isFalse();
  }

  @Test
  void aStateMachineWhoseNextEntryIsInTheLogIsNotStuck() {
    gap.stuck(1599, 1600, 2664, 0);

    assertThat(gap.stuck(1599, 1600, 2664, 10 * LIMIT)).isFalse();
  }
}
