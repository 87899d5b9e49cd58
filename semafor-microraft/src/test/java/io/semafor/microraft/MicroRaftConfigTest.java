package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.PeerTls;
import io.semafor.replication.ReplicatorProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a MicroRaft member makes of the cluster's description, and how it is found. */
class MicroRaftConfigTest {
  private static final ClusterSpec NODE =
      ClusterSpec.of(
          "n1",
          ClusterSpec.parseMembers("n1=127.0.0.1:7400:7500,n2=127.0.0.1:7410:7510"),
          Path.of("/var/lib/semafor/n1"),
          ClusterSpec.Durability.FSYNC);

  @Test
  void theElectionRangeBecomesATimeoutAndASpread() {
    MicroRaftConfig config =
        MicroRaftConfig.from(
            NODE.withElectionTimeouts(Duration.ofMillis(400), Duration.ofMillis(1000)));
    assertThat(config.electionTimeout()).isEqualTo(Duration.ofMillis(400));
    assertThat(config.electionSpread()).isEqualTo(Duration.ofMillis(600));
  }

  @Test
  void fsyncDurabilityForcesEachEntryAndReplicatedDoesNot() {
    assertThat(MicroRaftConfig.from(NODE).fsync()).isTrue();
    assertThat(
            MicroRaftConfig.from(
                    ClusterSpec.of(
                        "n1", NODE.members(), NODE.dataDir(), ClusterSpec.Durability.REPLICATED))
                .fsync())
        .isFalse();
  }

  @Test
  void theSpecsPropertiesTuneItAndItsTlsAndJoinCarryOver() {
    PeerTls tls = new PeerTls(Path.of("c"), Path.of("k"), Path.of("ca"));
    MicroRaftConfig config =
        MicroRaftConfig.from(
            NODE.withProperties(Map.of("microraft.snapshot-every", "10")).withTls(tls).joining());
    assertThat(config.snapshotEvery()).isEqualTo(10);
    assertThat(config.tls()).isEqualTo(tls);
    assertThat(config.join()).isTrue();
    assertThat(config.members()).isEqualTo(NODE.members());
  }

  @Test
  void aPropertyItDoesNotReadIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(
            () ->
                new MicroRaftProvider()
                    .factory(NODE.withProperties(Map.of("raft.server.rpc.timeout.min", "1s"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "raftProperty: raft.server.rpc.timeout.min is not a MicroRaft replicator property");
  }

  @Test
  void itIsTheDefaultReplicatorFoundByName() {
    assertThat(ReplicatorProvider.named(ReplicatorProvider.DEFAULT))
        .isInstanceOf(MicroRaftProvider.class);
    assertThat(ReplicatorProvider.named("MicroRaft")).isInstanceOf(MicroRaftProvider.class);
  }

  @Test
  void aNameNobodyProvidesIsRefusedNamingTheOnesThereAre() {
    // only this module's provider is on its test class path
    assertThatThrownBy(() -> ReplicatorProvider.named("zab"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicator: 'zab' is none of microraft");
  }
}
