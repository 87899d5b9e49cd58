package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower that cannot write a snapshot's digest goes on applying. Ratis's {@code
 * computeAndSaveMd5ForFile} throws an unchecked exception when the {@code .md5} file cannot be
 * written (a disk that filled between the snapshot and its digest: found by the fault harness), and
 * an unchecked exception out of {@code takeSnapshot} made Ratis close the member and leave the
 * process up without it. Here the digest cannot be written because its path is taken by a
 * directory, for every snapshot the follower would take.
 */
@Timeout(120)
class SnapshotDigestFailureTest {
  @TempDir Path dir;

  @Test
  void aFollowerThatCannotWriteASnapshotsDigestGoesOnApplying() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 50, TestCluster.SMALL_LOG_SEGMENTS);
        SemaforClient client = cluster.client(Duration.ofSeconds(30))) {
      NamedSemaphore counter = client.create("counter", 0);
      int follower = (cluster.awaitLeader() + 1) % 3;
      Path sm;
      try (var groups = Files.list(cluster.dataDir(follower))) {
        sm = groups.filter(Files::isDirectory).findFirst().orElseThrow().resolve("sm");
      }
      Files.createDirectories(sm);
      for (int term = 1; term <= 3; term++) {
        for (int index = 0; index <= 400; index++) {
          Files.createDirectories(sm.resolve("snapshot." + term + "_" + index + ".md5"));
        }
      }

      for (int i = 0; i < 300; i++) { // several snapshots' worth: each fails on the follower
        counter.increment(1);
      }

      long commit = cluster.statusNumber(cluster.awaitLeader(), "commitIndex");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> cluster.statusNumber(follower, "appliedIndex") >= commit);
      assertThat(counter.value()).isEqualTo(300);
    }
  }
}
