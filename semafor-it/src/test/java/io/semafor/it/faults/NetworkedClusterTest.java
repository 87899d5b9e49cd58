package io.semafor.it.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.SemaforClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's own ground: three node JVMs, each in its own network namespace behind the harness's
 * bridge, form a cluster that a client reaches over the test subnet; cutting the leader off with
 * iptables makes the others elect a new one, and healing lets the old one rejoin.
 */
class NetworkedClusterTest {
  @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
  Path dir = Path.of("set-by-junit");

  /** A failed test prints the end of each node's log: a CI run's output is all one gets. */
  @RegisterExtension
  final TestWatcher nodeLogsOnFailure =
      new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, @Nullable Throwable cause) {
          for (FaultNode n : nodes) {
            Path log = dir.resolve(n.id()).resolve("node.log");
            try (Stream<String> lines = Files.lines(log)) {
              List<String> all = lines.filter(l -> !l.startsWith("\tat ")).toList();
              System.err.println("---- the end of " + log);
              all.subList(Math.max(0, all.size() - 60), all.size()).forEach(System.err::println);
            } catch (IOException | UncheckedIOException e) {
              System.err.println("---- " + log + " unreadable: " + e);
            }
          }
        }
      };

  private TestNetwork network;
  private final List<FaultNode> nodes = new ArrayList<>();

  @BeforeEach
  void start() {
    String unavailable = TestNetwork.unavailableBecause();
    Assumptions.assumeTrue(
        unavailable == null || "true".equals(System.getenv("CI")), String.valueOf(unavailable));
    network = TestNetwork.create();
    List<String> peers = new ArrayList<>();
    List<TestNetwork.Host> hosts = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      TestNetwork.Host h = network.addHost("n" + i);
      hosts.add(h);
      peers.add(FaultNode.peerEntry("n" + i, h));
    }
    for (int i = 1; i <= 3; i++) {
      FaultNode n =
          new FaultNode(
              "n" + i,
              hosts.get(i - 1),
              String.join(",", peers),
              dir.resolve("n" + i),
              "REPLICATED");
      nodes.add(n);
      n.start();
    }
  }

  @AfterEach
  void stop() {
    for (FaultNode n : nodes) {
      n.close();
    }
    if (network != null) {
      network.close();
    }
  }

  /** A client in the harness's own namespace, given every node's address. */
  private SemaforClient client() {
    String addresses =
        nodes.stream().map(FaultNode::clientAddress).collect(Collectors.joining(","));
    return SemaforClient.builder()
        .addresses(addresses)
        .giveUpAfter(Duration.ofSeconds(30))
        .connect();
  }

  private FaultNode leader() {
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> nodes.stream().filter(FaultNode::saysItLeads).findFirst().orElse(null),
            java.util.Objects::nonNull);
  }

  @Test
  void aClientOnTheTestSubnetUsesAClusterOfNamespacedNodes() {
    leader();
    try (SemaforClient c = client()) {
      c.create("printers", 2);
      assertThat(c.semaphore("printers").value()).isEqualTo(2);
    }
  }

  @Test
  void anIsolatedLeaderIsReplacedAndRejoinsWhenHealed() {
    FaultNode old = leader();
    List<TestNetwork.Host> others =
        nodes.stream().filter(n -> n != old).map(FaultNode::host).toList();
    network.partition(List.of(old.host()), others);

    FaultNode replacement =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    nodes.stream()
                        .filter(n -> n != old && n.saysItLeads())
                        .findFirst()
                        .orElse(null),
                java.util.Objects::nonNull);
    assertThat(replacement).isNotSameAs(old);

    network.heal();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> nodes.stream().filter(FaultNode::saysItLeads).count() == 1);
  }

  @Test
  void underPacketDelayEveryCommitWaitsForTheDelayedFollowersAndNoneIsLost() {
    leader();
    try (SemaforClient c = client()) {
      c.create("counter", 0);
      Fault.Undo undo =
          Fault.PACKET_DELAY.apply(
              network,
              nodes,
              List.of(),
              List.of(),
              null,
              new java.util.Random(1),
              new StringBuilder());
      long fastest;
      try {
        // a commit needs a follower's answer, and both ways now pass through a delaying proxy
        // (the harness's own client is outside the namespaces: only the nodes' links are slow)
        fastest = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
          long start = System.nanoTime();
          c.semaphore("counter").increment(1);
          fastest = Math.min(fastest, System.nanoTime() - start);
        }
      } finally {
        undo.undo();
      }
      c.semaphore("counter").increment(1);
      assertThat(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(fastest))
          .as("the fastest commit under delay")
          .isGreaterThanOrEqualTo(2 * Fault.DELAY_MIN_MILLIS);
      assertThat(c.semaphore("counter").value()).isEqualTo(6);
    }
  }
}
