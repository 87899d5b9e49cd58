package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** MicroRaft's time, in which one of its seconds lasts one heartbeat period. */
class TimeScaleTest {
  private static final TimeScale TENTH = new TimeScale(Duration.ofMillis(100));

  @Test
  void aDelayOfOneMicroRaftSecondLastsOnePeriod() {
    assertThat(TENTH.realNanos(1, TimeUnit.SECONDS)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    assertThat(TENTH.realNanos(3, TimeUnit.SECONDS)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
  }

  @Test
  void delaysInMillisecondsShrinkByTheSameFactor() {
    assertThat(TENTH.realNanos(250, TimeUnit.MILLISECONDS))
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(25));
    assertThat(TENTH.realNanos(7, TimeUnit.NANOSECONDS)).isZero();
  }

  @Test
  void theClockRunsFasterByTheFactorFromOneSecond() {
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    Clock clock = TENTH.clock(nanos::get);
    assertThat(clock.millis()).isEqualTo(1_000);
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
    assertThat(clock.millis()).isEqualTo(2_000);
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(35));
    assertThat(clock.millis()).isEqualTo(2_350);
  }

  @Property
  void aDelayReadOnTheClockLastsWhatTheLoopWaits(
      @ForAll @LongRange(min = 0, max = 86_400_000L) long raftMillis) {
    // what MicroRaft schedules and what it later measures on its clock must agree
    AtomicLong nanos = new AtomicLong(123);
    Clock clock = TENTH.clock(nanos::get);
    long start = clock.millis();
    nanos.addAndGet(TENTH.realNanos(raftMillis, TimeUnit.MILLISECONDS));
    assertThat(clock.millis() - start).isBetween(raftMillis - 1, raftMillis);
  }

  @Property
  void noDelayOverflows(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long raftNanos) {
    assertThat(TENTH.realNanos(raftNanos, TimeUnit.NANOSECONDS))
        .isBetween(raftNanos / 10 - 1, raftNanos / 10 + 1);
  }

  @Test
  void theLeaderIsGivenUpAfterWholePeriodsRoundedUp() {
    assertThat(TENTH.wholePeriods(Duration.ofMillis(300))).isEqualTo(3);
    assertThat(TENTH.wholePeriods(Duration.ofMillis(301))).isEqualTo(4);
    assertThat(TENTH.wholePeriods(Duration.ofMillis(20))).isEqualTo(1);
  }

  @Test
  void anElectionTimeoutIsGivenInMicroRaftMilliseconds() {
    assertThat(TENTH.raftMillis(Duration.ofMillis(300))).isEqualTo(3_000);
    assertThat(TimeScale.real().raftMillis(Duration.ofMillis(300))).isEqualTo(300);
  }

  @Test
  void aPeriodOutsideOneMillisecondToOneSecondIsRefused() {
    assertThatThrownBy(() -> new TimeScale(Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("microraft.heartbeat-period");
    assertThatThrownBy(() -> new TimeScale(Duration.ofNanos(999_999)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theNodeLoopRunsATaskScheduledInOneMicroRaftSecondAfterOnePeriod() {
    AtomicBoolean ran = new AtomicBoolean();
    try (NodeLoop loop = new NodeLoop("scaled", new TimeScale(Duration.ofMillis(50)))) {
      loop.schedule(() -> ran.set(true), 10, TimeUnit.SECONDS);
      // ten MicroRaft seconds are half a real second; unscaled they would be ten
      await().atMost(Duration.ofSeconds(5)).untilTrue(ran);
    }
  }
}
