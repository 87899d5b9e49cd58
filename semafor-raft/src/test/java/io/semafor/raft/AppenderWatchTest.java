package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link AppenderWatch}: an appender silent past the limit is restarted, once; others are not. */
class AppenderWatchTest {
  /** An appender whose silence the test sets, as a fake clock would. */
  private static final class FakeAppender implements AppenderWatch.Watched {
    long silentMillis;
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
}
