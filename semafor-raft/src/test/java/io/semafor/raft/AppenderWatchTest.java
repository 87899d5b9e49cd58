package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link AppenderWatch}: an appender silent past the limit is restarted, once; others are not. */
class AppenderWatchTest {
  /** An appender whose silence the test sets, as a fake clock would. */
  private static final class FakeAppender implements AppenderWatch.Watched {
    long silentMillis;
    long unansweredMillis;
    long matchIndex = 100;
    long leaderLastIndex = 100;
    boolean running = true;
    int restarts;
    boolean failRestart;

    @Override
    public boolean running() {
      return running;
    }

    @Override
    public long silentMillis() {
      return silentMillis;
    }

    @Override
    public long unansweredMillis() {
      return unansweredMillis;
    }

    @Override
    public long matchIndex() {
      return matchIndex;
    }

    @Override
    public long leaderLastIndex() {
      return leaderLastIndex;
    }

    @Override
    public void restart() {
      if (failRestart) {
        throw new IllegalStateException("leader state not running");
      }
      restarts++;
    }

    @Override
    public String name() {
      return "n1->n2";
    }
  }

  private final AppenderWatch watch = new AppenderWatch();

  @Test
  void anAppenderThatSentSomethingWithinTheLimitIsLeftAlone() {
    FakeAppender a = new FakeAppender();
    a.silentMillis = AppenderWatch.SILENCE_LIMIT.toMillis() - 1;
    watch.watch(a);

    assertThat(watch.check()).isEmpty();
    assertThat(a.restarts).isZero();
    assertThat(watch.watching()).isEqualTo(1);
  }

  @Test
  void anAppenderSilentForTheLimitIsRestartedAndForgotten() {
    FakeAppender a = new FakeAppender();
    a.silentMillis = AppenderWatch.SILENCE_LIMIT.toMillis();
    watch.watch(a);

    assertThat(watch.check()).containsExactly(a);
    assertThat(watch.check()).isEmpty(); // its replacement is watched, not it
    assertThat(a.restarts).isEqualTo(1);
    assertThat(watch.restarts()).isEqualTo(1);
  }

  @Test
  void aStoppedAppenderIsForgottenWithoutARestart() {
    FakeAppender a = new FakeAppender();
    a.silentMillis = Long.MAX_VALUE;
    a.running = false;
    watch.watch(a);

    assertThat(watch.check()).isEmpty();
    assertThat(a.restarts).isZero();
    assertThat(watch.watching()).isZero();
  }

  @Test
  void aRestartThatFailsIsTriedAgainAtTheNextCheck() {
    FakeAppender a = new FakeAppender();
    a.silentMillis = AppenderWatch.SILENCE_LIMIT.toMillis() + 1;
    a.failRestart = true;
    watch.watch(a);

    assertThat(watch.check()).isEmpty();
    a.failRestart = false;
    assertThat(watch.check()).containsExactly(a);
    assertThat(a.restarts).isEqualTo(1);
  }

  private static final long LIMIT_NANOS = AppenderWatch.STALL_LIMIT.toNanos();

  @Test
  void aFollowerThatAnswersButStaysBehindForTheLimitHasItsAppenderRestarted() {
    FakeAppender a = new FakeAppender();
    a.matchIndex = 229;
    a.leaderLastIndex = 365; // answering "inconsistent" to every heartbeat, never sent 229
    watch.watch(a);

    assertThat(watch.check(0)).isEmpty(); // first seen at 229
    assertThat(watch.check(LIMIT_NANOS - 1)).isEmpty();
    assertThat(watch.check(LIMIT_NANOS)).containsExactly(a);
  }

  @Test
  void aFollowerThatCatchesUpIsLeftAloneHoweverLongItTakes() {
    FakeAppender a = new FakeAppender();
    a.leaderLastIndex = 10_000;
    watch.watch(a);

    for (long t = 0; t <= 3 * LIMIT_NANOS; t += LIMIT_NANOS / 2) {
      a.matchIndex += 10; // progress at every check
      assertThat(watch.check(t)).isEmpty();
    }
  }

  @Test
  void aFollowerThatDoesNotAnswerIsLeftToItsAppender() {
    FakeAppender a = new FakeAppender();
    a.matchIndex = 229;
    a.leaderLastIndex = 365;
    a.unansweredMillis = AppenderWatch.ANSWERING_WITHIN.toMillis(); // down or cut off
    watch.watch(a);

    assertThat(watch.check(0)).isEmpty();
    assertThat(watch.check(2 * LIMIT_NANOS)).isEmpty();
  }

  @Test
  void aFollowerThatIsUpToDateIsNotStalledHoweverLongNothingIsWritten() {
    FakeAppender a = new FakeAppender(); // match = leader's last = 100
    watch.watch(a);

    assertThat(watch.check(0)).isEmpty();
    assertThat(watch.check(2 * LIMIT_NANOS)).isEmpty();
  }

  @Test
  void aFollowerThatHasAcknowledgedNothingYetIsLeftToRatisWhileItsAppenderSends() {
    FakeAppender a = new FakeAppender();
    a.matchIndex = -1; // a new member receiving its first snapshot
    a.leaderLastIndex = 1763;
    watch.watch(a);

    assertThat(watch.check(0)).isEmpty();
    assertThat(watch.check(2 * LIMIT_NANOS)).isEmpty();
  }
}
