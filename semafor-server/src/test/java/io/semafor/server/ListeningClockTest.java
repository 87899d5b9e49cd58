package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The clock session liveness is judged on: real time, less the time the process did not run. */
class ListeningClockTest {
  private static final long MS = 1_000_000L;

  private final AtomicLong nanoTime = new AtomicLong(1_000 * MS);
  private final ListeningClock clock = new ListeningClock(nanoTime::get, 50 * MS);

  private void advance(long nanos) {
    nanoTime.addAndGet(nanos);
  }

  @Test
  void runsAtRealSpeedWhileTicksComeOnTime() {
    long start = clock.now();
    for (int i = 0; i < 100; i++) {
      advance(10 * MS);
      clock.tick();
    }
    assertThat(clock.now() - start).isEqualTo(1_000 * MS);
    assertThat(clock.pausedNanos()).isZero();
  }

  @Test
  void leavesOutAPauseBeyondTheStallAllowanceOnceTicksResume() {
    long start = clock.now();
    advance(5_000 * MS); // the process was stopped for 5 s
    clock.tick();
    assertThat(clock.now() - start).isEqualTo(50 * MS);
    assertThat(clock.pausedNanos()).isEqualTo(4_950 * MS);
  }

  @Test
  void leavesOutAPauseEvenWhenReadBeforeTheFirstTickAfterIt() {
    long start = clock.now();
    advance(5_000 * MS);
    assertThat(clock.now() - start).as("read before any tick").isEqualTo(50 * MS);
  }

  @Test
  void neverRunsBackwardsAcrossATick() {
    advance(30 * MS);
    long before = clock.now();
    advance(3_000 * MS);
    long duringPause = clock.now();
    clock.tick();
    long afterTick = clock.now();
    advance(1);
    assertThat(duringPause).isGreaterThanOrEqualTo(before);
    assertThat(afterTick).isEqualTo(duringPause);
    assertThat(clock.now()).isEqualTo(afterTick + 1);
  }

  @Test
  void aGapWithinTheStallAllowanceIsNotAPause() {
    long start = clock.now();
    advance(49 * MS);
    clock.tick();
    assertThat(clock.now() - start).isEqualTo(49 * MS);
    assertThat(clock.pausedNanos()).isZero();
  }
}
