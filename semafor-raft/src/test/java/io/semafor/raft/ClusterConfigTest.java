package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How a node's --peers are read. */
class ClusterConfigTest {
  @Test
  void peersParseAndBadOnesAreNamed() {
    assertThat(ClusterConfig.parsePeers("n1=127.0.0.1:7400:7500,n2=h:1:2"))
        .containsExactly(
            new ClusterConfig.Peer("n1", "127.0.0.1", 7400, 7500),
            new ClusterConfig.Peer("n2", "h", 1, 2));
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n1=127.0.0.1:7400"))
        .hasMessageContaining("id=host:clientPort:raftPort");
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n1=h:1:2,n1=h:3:4"))
        .hasMessageContaining("twice");
  }
}
