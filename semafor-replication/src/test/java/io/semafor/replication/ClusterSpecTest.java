package io.semafor.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A node's view of its cluster, as every replicator reads it. */
class ClusterSpecTest {
  private static final ClusterSpec NODE =
      ClusterSpec.of(
          "n1",
          ClusterSpec.parseMembers("n1=127.0.0.1:7400:7500,n2=127.0.0.1:7410:7510"),
          Path.of("/var/lib/semafor/n1"),
          ClusterSpec.Durability.FSYNC);

  @Test
  void membersParseInOrder() {
    assertThat(ClusterSpec.parseMembers("n1=127.0.0.1:7400:7500,n2=h:1:2"))
        .containsExactly(
            new GroupMember("n1", "127.0.0.1", 7400, 7500), new GroupMember("n2", "h", 1, 2));
  }

  @Test
  void aMalformedMemberIsRefusedNamingTheForm() {
    assertThatThrownBy(() -> ClusterSpec.parseMembers("n1=127.0.0.1:7400"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id=host:clientPort:raftPort");
  }

  @Test
  void aMemberNamedTwiceIsRefused() {
    assertThatThrownBy(() -> ClusterSpec.parseMembers("n1=h:1:2,n1=h:3:4"))
        .hasMessage("peers: n1 appears twice");
  }

  @Test
  void theNodeMustBeAMember() {
    assertThatThrownBy(
            () ->
                ClusterSpec.of("n9", NODE.members(), NODE.dataDir(), ClusterSpec.Durability.FSYNC))
        .hasMessageStartingWith("nodeId: n9 is not among the peers");
  }

  @Test
  void theDefaultsElectBetween300And600Milliseconds() {
    assertThat(NODE.electionTimeoutMin()).isEqualTo(Duration.ofMillis(300));
    assertThat(NODE.electionTimeoutMax()).isEqualTo(Duration.ofMillis(600));
    assertThat(NODE.join()).isFalse();
    assertThat(NODE.tls()).isNull();
    assertThat(NODE.self()).isEqualTo(new GroupMember("n1", "127.0.0.1", 7400, 7500));
  }

  @Test
  void electionTimeoutsMustBeARangeOfAtLeast100Milliseconds() {
    assertThatThrownBy(
            () -> NODE.withElectionTimeouts(Duration.ofMillis(50), Duration.ofMillis(500)))
        .hasMessage("electionTimeout: 50ms is under 100ms");
    assertThatThrownBy(
            () -> NODE.withElectionTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("electionTimeout: the maximum 1000ms must exceed the minimum 1000ms");
  }

  @Test
  void aPropertyWithoutAValueIsRefused() {
    assertThatThrownBy(() -> NODE.withProperties(Map.of("microraft.snapshot-every", " ")))
        .hasMessage("raftProperty: microraft.snapshot-every has no value");
  }

  @Test
  void aPropertyWithANullValueIsRefusedNamingIt() {
    java.util.Map<String, String> withNull = new java.util.HashMap<>();
    withNull.put("microraft.snapshot-every", null);
    assertThatThrownBy(() -> NODE.withProperties(withNull))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("raftProperty: microraft.snapshot-every has no value");
  }

  @Test
  void thePropertiesSurviveTheSpecsOtherChanges() {
    PeerTls tls = new PeerTls(Path.of("c"), Path.of("k"), Path.of("ca"));
    ClusterSpec changed =
        NODE.withProperties(Map.of("microraft.snapshot-every", "10"))
            .joining()
            .withTls(tls)
            .withElectionTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(changed.properties())
        .containsExactlyEntriesOf(Map.of("microraft.snapshot-every", "10"));
    assertThat(changed.join()).isTrue();
    assertThat(changed.tls()).isEqualTo(tls);
    assertThat(changed.electionTimeoutMax()).isEqualTo(Duration.ofSeconds(2));
  }
}
