package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link StrandedEntries}: entries sent, unacknowledged and carried by no request in flight are
 * sent again once they have been so for {@link StrandedEntries#LIMIT} and the follower answered
 * meanwhile; nothing else is.
 */
class StrandedEntriesTest {
  private static final long LIMIT = StrandedEntries.LIMIT.toNanos();

  /** A term that started with the follower's match unknown (-1) and the leader's end at 500. */
  private final StrandedEntries stranded = new StrandedEntries(-1, 500);

  @Test
  void entriesStrandedForTheLimitWhileTheFollowerAnswersAreSentAgainFromTheMatchIndexPlusOne() {
    assertThat(stranded.resendFrom(false, 553, 555, 0, 0)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, LIMIT - 1, LIMIT - 1)).isEqualTo(-1);

    assertThat(stranded.resendFrom(false, 553, 555, LIMIT, LIMIT)).isEqualTo(554);
  }

  @Test
  void aFollowerThatHasNotAnsweredSinceIsLeftToRatissRetries() {
    stranded.resendFrom(false, 553, 555, 0, 0);

    // down: its last answer came before the entries were found stranded
    assertThat(stranded.resendFrom(false, 553, 555, 0, 10 * LIMIT)).isEqualTo(-1);
  }

  @Test
  void afterASendAgainTheLimitRunsAfresh() {
    stranded.resendFrom(false, 553, 555, 0, 0);
    stranded.resendFrom(false, 553, 555, LIMIT, LIMIT);

    assertThat(stranded.resendFrom(false, 553, 555, LIMIT + 1, LIMIT + 1)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, 2 * LIMIT + 1, 2 * LIMIT + 1)).isEqualTo(554);
  }

  @Test
  void entriesInFlightAreNotStranded() {
    stranded.resendFrom(true, 553, 555, 0, 0);

    assertThat(stranded.resendFrom(true, 553, 555, 10 * LIMIT, 10 * LIMIT)).isEqualTo(-1);
  }

  @Test
  void aRequestInFlightInBetweenStartsTheLimitAgain() {
    stranded.resendFrom(false, 553, 555, 0, 0);
    stranded.resendFrom(true, 553, 555, LIMIT / 2, LIMIT / 2);

    assertThat(stranded.resendFrom(false, 553, 555, LIMIT, LIMIT)).isEqualTo(-1);
    assertThat(stranded.resendFrom(false, 553, 555, 2 * LIMIT, 2 * LIMIT)).isEqualTo(554);
  }

  @Test
  void aFollowerThatHasEverythingSentIsNotStranded() {
    stranded.resendFrom(false, 554, 555, 0, 0);

    assertThat(stranded.resendFrom(false, 554, 555, 10 * LIMIT, 10 * LIMIT)).isEqualTo(-1);
  }

  @Test
  void beforeTheFollowerAcknowledgesAnythingOnlyWhatWasSentPastTheTermsStartIsSentAgain() {
    // the term's first entry (500) went out and its request was lost: match is still unknown
    stranded.resendFrom(false, -1, 501, 0, 0);

    assertThat(stranded.resendFrom(false, -1, 501, LIMIT, LIMIT)).isEqualTo(500);
  }

  @Test
  void aFollowerWhoseMatchIsUnknownAndToWhichNothingWasSentIsLeftToRatis() {
    stranded.resendFrom(false, -1, 500, 0, 0);

    // sending from its unknown match would resend the whole log, or a snapshot
    assertThat(stranded.resendFrom(false, -1, 500, 10 * LIMIT, 10 * LIMIT)).isEqualTo(-1);
  }
}
