package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A membership change reports what happened to the membership. Ratis's client sends a change again
 * after an error; when the first try had gone through, the second's compare-and-set found the
 * configuration already changed and the change was reported as failed although it had been made.
 * The fault harness's REPLACE_MEMBER met it: the harness, told the removal failed, left the removed
 * node running outside the cluster. Two callers asking for the same change meet the same case.
 */
@Timeout(120)
class MembershipChangeOutcomeTest {
  @TempDir Path dir;

  @Test
  void twoCallersRemovingTheSameMemberWhileTheChangeWaitsBothSeeItDone() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000)) {
      int leader = cluster.awaitLeader();
      int removed = (leader + 1) % 3;
      int stopped = (leader + 2) % 3;
      // the new configuration (leader and the stopped node) cannot commit until the stopped node
      // is back, so both requests are in flight, each comparing against the three-node
      // configuration
      cluster.stopNode(stopped);
      CompletableFuture<List<String>> first =
          CompletableFuture.supplyAsync(
              () -> cluster.replicator(leader).removeMember(cluster.id(removed)));
      CompletableFuture<List<String>> second =
          CompletableFuture.supplyAsync(
              () -> cluster.replicator(leader).removeMember(cluster.id(removed)));
      TimeUnit.SECONDS.sleep(2); // both sent; the change needs the stopped node
      cluster.startNode(stopped);

      List<String> after = List.of(cluster.id(leader), cluster.id(stopped));
      assertThat(first.get(60, TimeUnit.SECONDS)).containsExactlyInAnyOrderElementsOf(after);
      assertThat(second.get(60, TimeUnit.SECONDS)).containsExactlyInAnyOrderElementsOf(after);
    }
  }
}
