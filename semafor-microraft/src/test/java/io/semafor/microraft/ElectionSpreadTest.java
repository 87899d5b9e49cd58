package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;

import io.microraft.impl.RaftNodeImpl;
import io.semafor.core.SemaphoreMachine;
import io.semafor.embedded.FreePorts;
import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MicroRaft 0.7 waits its election timeout plus at most 100 of its milliseconds before a candidate
 * stands again — a tenth of a heartbeat period on Semafor's clock (10 ms against 300 ms rounds) —
 * so candidates that started together stand again together; with {@link ElectionSpread} the extra
 * spans the operator's {@code --election-timeout} range. Read through MicroRaft's own {@code
 * RaftNodeImpl.getLeaderElectionTimeoutMs}, which schedules every election and pre-vote round.
 */
class ElectionSpreadTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  @TempDir Path dir = Path.of("set-by-junit");

  /** The round lengths, in MicroRaft's milliseconds, of a member configured with {@code spread}. */
  private LongSummaryStatistics rounds(Duration spread) {
    GroupMember self = new GroupMember("n1", "127.0.0.1", FreePorts.next(), FreePorts.next());
    MicroRaftConfig config =
        MicroRaftConfig.of("n1", List.of(self), dir.resolve("n1"), false, TIMEOUT, spread);
    try (MicroRaftReplicator<Object, Object, Object> member =
        MicroRaftReplicator.start(
            config, new SemaphoreMachine(), new MicroRaftReplicatorTest.Recorder())) {
      CompletableFuture<LongSummaryStatistics> drawn = new CompletableFuture<>();
      member
          .nodeLoop()
          .execute(
              () -> {
                LongSummaryStatistics s = new LongSummaryStatistics();
                for (int i = 0; i < 500; i++) {
                  s.accept(((RaftNodeImpl) member.raftNode()).getLeaderElectionTimeoutMs());
                }
                drawn.complete(s);
              });
      return drawn.join();
    }
  }

  /** {@code ElectionSpread} never draws below MicroRaft's own bound: this is 0.7's behaviour. */
  @Test
  void withNoSpreadGivenTheRoundsVaryByMicroRaftsOwnTenthOfAPeriodOnly() {
    LongSummaryStatistics s = rounds(Duration.ZERO);

    assertThat(s.getMin()).isGreaterThanOrEqualTo(3_000); // 300 ms: 3 periods of 1,000
    assertThat(s.getMax()).isLessThan(3_100); // 10 ms real
  }

  @Test
  void electionRoundsSpanTheOperatorsRange() {
    LongSummaryStatistics s = rounds(Duration.ofMillis(300)); // --election-timeout 300ms-600ms

    assertThat(s.getMin()).isGreaterThanOrEqualTo(3_000);
    assertThat(s.getMax()).isLessThan(6_000).isGreaterThan(5_000); // 500 draws over 3,000
    assertThat(s.getAverage()).isBetween(4_000.0, 5_000.0);
  }
}
