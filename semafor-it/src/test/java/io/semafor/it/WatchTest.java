package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreWatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watch through a cluster (decision 0041): it follows a new leader when the old one dies and
 * resumes after the last revision it was told, so that it misses no change and is told none twice.
 */
@Timeout(120)
class WatchTest {
  @TempDir Path dir;

  @Test
  void aWatchFollowsANewLeaderAndIsToldEveryChangeOnce() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, dir, 100_000);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      NamedSemaphore x = client.create("x", 0);
      List<SemaphoreWatch.Event> events = new CopyOnWriteArrayList<>();
      try (SemaphoreWatch watch = x.watch(events::add)) {
        assertThat(watch.awaitSynced(Duration.ofSeconds(10))).isTrue();
        for (int i = 0; i < 5; i++) {
          x.increment(1);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> lastValue(events) == 5);

        cluster.stopNode(cluster.awaitLeader()); // the leader the watch is connected to
        for (int i = 0; i < 5; i++) {
          x.increment(1); // the client follows the new leader; so must the watch
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> lastValue(events) == 10);
      }
      List<Long> values = new ArrayList<>();
      Set<Long> revisions = new HashSet<>();
      long last = 0;
      for (SemaphoreWatch.Event e : events) {
        assertThat(e.revision()).as("revisions never go back").isGreaterThanOrEqualTo(last);
        last = e.revision();
        if (e instanceof SemaphoreWatch.Changed c) {
          assertThat(revisions.add(c.revision())).as("told twice: %s", e).isTrue();
          values.add(c.state().value());
        }
        assertThat(e).isNotInstanceOf(SemaphoreWatch.Failed.class);
      }
      // the first state, then each increment before the failover; after it, those made while the
      // watch reconnected may come coalesced, and the rest one by one
      assertThat(values.subList(0, 6)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
      assertThat(values).isSorted().endsWith(10L);
    }
  }

  private static long lastValue(List<SemaphoreWatch.Event> events) {
    for (int i = events.size() - 1; i >= 0; i--) {
      if (events.get(i) instanceof SemaphoreWatch.Changed c) {
        return c.state().value();
      }
    }
    return -1;
  }
}
