package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.replication.ClusterSpec;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

/** The Ratis properties a node runs with: its options, Semafor's tuning, an operator's. */
class RatisPropertiesTest {
  private static final ClusterSpec NODE =
      ClusterSpec.of(
          "n1",
          ClusterSpec.parseMembers("n1=127.0.0.1:7400:7500,n2=127.0.0.1:7410:7510"),
          Path.of("/var/lib/semafor/n1"),
          ClusterSpec.Durability.REPLICATED);

  @Test
  void theNodesOptionsDecideItsStoragePortAndFlush() {
    RaftProperties p = RatisProperties.of(NODE);
    assertThat(RaftServerConfigKeys.storageDir(p))
        .containsExactly(Path.of("/var/lib/semafor/n1").toFile());
    assertThat(GrpcConfigKeys.Server.port(p)).isEqualTo(7500);
    assertThat(RaftServerConfigKeys.Log.unsafeFlushEnabled(p)).isTrue();
    assertThat(
            RaftServerConfigKeys.Log.unsafeFlushEnabled(
                RatisProperties.of(
                    ClusterSpec.of(
                        "n1", NODE.members(), NODE.dataDir(), ClusterSpec.Durability.FSYNC))))
        .isFalse();
  }

  @Test
  void anOperatorsPropertyOverridesSemaforsTuning() {
    RaftProperties p =
        RatisProperties.of(
            NODE.withProperties(
                Map.of(
                    "raft.server.log.appender.wait-time.min", "7ms",
                    "raft.server.log.segment.size.max", "1MB")));
    assertThat(
            RaftServerConfigKeys.Log.Appender.waitTimeMin(p)
                .toLong(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isEqualTo(7);
    assertThat(RaftServerConfigKeys.Log.segmentSizeMax(p).getSize()).isEqualTo(1 << 20);
  }

  @Test
  void aKeyRatisDoesNotReadIsRefusedNamingIt() {
    assertThatThrownBy(() -> check(Map.of("raft.server.log.appender.wait-time.mn", "0ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageMatching(
            "raftProperty: raft\\.server\\.log\\.appender\\.wait-time\\.mn is not a property of"
                + " Ratis \\d+\\.\\d+\\.\\d+");
  }

  @Test
  void aKeyThatSemaforsOptionsSetIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> check(Map.of("raft.server.rpc.timeout.min", "100ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "raftProperty: raft.server.rpc.timeout.min cannot be set here: --election-timeout"
                + " sets it");
  }

  @Test
  void everyReservedKeyIsOneRatisReads() {
    // a reserved key Ratis renamed would no longer protect anything: it must still be a real key
    for (String key : RatisProperties.RESERVED.keySet()) {
      assertThat(RatisProperties.isRatisKey(key)).as(key).isTrue();
    }
  }

  @Test
  void aPropertyWithoutAValueIsRefused() {
    assertThatThrownBy(() -> check(Map.of("raft.server.log.appender.wait-time.min", " ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("raftProperty: raft.server.log.appender.wait-time.min has no value");
  }

  @Test
  void theSnapshotIntervalAnOperatorSetsAlsoSetsThePurgeGap() {
    RaftProperties p =
        RatisProperties.of(NODE.withProperties(Map.of(RatisProperties.SNAPSHOT_EVERY_KEY, "50")));
    assertThat(RaftServerConfigKeys.Snapshot.autoTriggerThreshold(p)).isEqualTo(50);
    assertThat(RaftServerConfigKeys.Log.purgeGap(p)).isEqualTo(50);
  }

  @Test
  void aSnapshotIntervalThatIsNotAPositiveNumberIsRefusedNamingIt() {
    assertThatThrownBy(() -> check(Map.of(RatisProperties.SNAPSHOT_EVERY_KEY, "often")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "raftProperty: raft.server.snapshot.auto.trigger.threshold=often is not a whole"
                + " number");
    assertThatThrownBy(() -> check(Map.of(RatisProperties.SNAPSHOT_EVERY_KEY, "0")))
        .hasMessageContaining("must be at least 1");
  }

  @Test
  void theProviderRefusesABadPropertyBeforeAnythingStarts() {
    assertThatThrownBy(
            () ->
                new RatisProvider()
                    .factory(NODE.withProperties(Map.of("raft.server.rpc.timeout.min", "1s"))))
        .hasMessageStartingWith("raftProperty: raft.server.rpc.timeout.min cannot be set here");
  }

  private static void check(Map<String, String> properties) {
    RatisProperties.check(NODE.withProperties(properties));
  }

  @Test
  void followersAppendEachRequestDirectlyAndTheLeaderSendsWithoutAMinimumWait() {
    RaftProperties p = RatisProperties.of(NODE);
    assertThat(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(p)).isFalse();
    assertThat(RaftServerConfigKeys.Log.Appender.waitTimeMin(p).toLong(TimeUnit.NANOSECONDS))
        .isZero();
  }
}
