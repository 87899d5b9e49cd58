package io.semafor.replication.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The series every replicator exports, read from what the member knows at scrape time. */
class GroupMetricsTest {
  /** A member that leads term 7, saw 3 leader changes, applied 90 of 100 committed entries. */
  private static final class Leading implements GroupMetrics.Group {
    @Override
    public boolean knowsALeader() {
      return true;
    }

    @Override
    public boolean isLeader() {
      return true;
    }

    @Override
    public long term() {
      return 7;
    }

    @Override
    public long leaderChanges() {
      return 3;
    }

    @Override
    public long commitIndex() {
      return 100;
    }

    @Override
    public long appliedIndex() {
      return 90;
    }
  }

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void theGroupsSeriesReadWhatTheMemberKnows() {
    GroupMetrics.bind(registry, new Leading());

    assertThat(registry.get("semafor_raft_has_leader").gauge().value()).isEqualTo(1);
    assertThat(registry.get("semafor_raft_is_leader").gauge().value()).isEqualTo(1);
    assertThat(registry.get("semafor_raft_term").gauge().value()).isEqualTo(7);
    assertThat(registry.get("semafor_raft_leader_changes").functionCounter().count()).isEqualTo(3);
    assertThat(registry.get("semafor_raft_commit_index").gauge().value()).isEqualTo(100);
    assertThat(registry.get("semafor_raft_applied_index").gauge().value()).isEqualTo(90);
    assertThat(registry.get("semafor_raft_apply_lag").gauge().value()).isEqualTo(10);
  }

  @Test
  void theLeaderChangesStayReadableWhenNothingButTheRegistryHoldsTheGroup() {
    // Micrometer holds a function counter's object weakly: the gauges' strong hold keeps it
    GroupMetrics.bind(registry, new Leading());
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    assertThat(registry.get("semafor_raft_leader_changes").functionCounter().count()).isEqualTo(3);
  }

  @Test
  void theSyncSeriesCountAndGiveTheQuantilesAsLabels() {
    GroupMetrics.bindSyncs(
        registry,
        new GroupMetrics.Syncs() {
          @Override
          public double count() {
            return 42;
          }

          @Override
          public double quantileSeconds(double quantile) {
            return quantile / 100;
          }
        },
        "the last 1,024 syncs");

    assertThat(registry.get("semafor_raft_log_syncs").functionCounter().count()).isEqualTo(42);
    assertThat(
            registry.get("semafor_raft_log_sync_seconds").tag("quantile", "0.99").gauge().value())
        .isCloseTo(0.0099, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(registry.get("semafor_raft_log_sync_seconds").tag("quantile", "1").gauge().value())
        .isEqualTo(0.01);
  }
}
