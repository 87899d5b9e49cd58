package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link StrandedEntries}: entries sent, unacknowledged and carried by no request in flight are
 * sent again once they have been so for {@link StrandedEntries#LIMIT}; nothing else is.
 */
class StrandedEntriesTest {
  private static final long LIMIT = StrandedEntries.LIMIT.toNanos();

  private final StrandedEntries stranded = new StrandedEntries(0);

  @Test
  void entriesStrandedForTheLimitAreSentAgainFromTheMatchIndexPlusOne() {
    assertThat(stranded.resendFrom(false, 553, 555, 0)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, LIMIT - 1)).isEqualTo(-1);

    assertThat(stranded.resendFrom(false, 553, 555, LIMIT)).isEqualTo(554);
  }

  @Test
  void afterASendAgainTheLimitRunsAfresh() {
    stranded.resendFrom(false, 553, 555, 0);
    stranded.resendFrom(false, 553, 555, LIMIT);

    assertThat(stranded.resendFrom(false, 553, 555, LIMIT + 1)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, 2 * LIMIT + 1)).isEqualTo(554);
  }

  @Test
  void entriesInFlightAreNotStranded() {
    stranded.resendFrom(true, 553, 555, 0);

    assertThat(stranded.resendFrom(true, 553, 555, 10 * LIMIT)).isEqualTo(-1);
  }

  @Test
  void aRequestInFlightInBetweenStartsTheLimitAgain() {
    stranded.resendFrom(false, 553, 555, 0);
    stranded.resendFrom(true, 553, 555, LIMIT / 2);

    assertThat(stranded.resendFrom(false, 553, 555, LIMIT)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, LIMIT + LIMIT / 2)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, 2 * LIMIT)).isEqualTo(554);
  }

  @Test
  void aFollowerThatHasEverythingSentIsNotStranded() {
    stranded.resendFrom(false, 554, 555, 0);

    assertThat(stranded.resendFrom(false, 554, 555, 10 * LIMIT)).isEqualTo(-1);
  }

  @Test
  void aFollowerThatHasAcknowledgedNothingSinceTheAppenderStartedIsLeftToRatis() {
    StrandedEntries fresh = new StrandedEntries(0);
    fresh.resendFrom(false, 0, 555, 0);

    // a new term starts every follower at match 0 and next at the leader's end: a heartbeat finds
    // where it is; sending from 1 would resend the whole log, or a snapshot
    assertThat(fresh.resendFrom(false, 0, 555, 10 * LIMIT)).isEqualTo(-1);
  }
}
