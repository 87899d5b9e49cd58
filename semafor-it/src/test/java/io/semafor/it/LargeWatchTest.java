package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreWatch;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ClientLimits;
import io.semafor.server.ServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A watch whose first states are more than the server lets queue unread for a connection: they are
 * sent in turns as the client reads them, and the watch syncs (docs/watches.md). Before, the server
 * queued them all at once, closed the connection at the unread cap, and the client reconnected and
 * started again, forever.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LargeWatchTest {
  private static final int SEMAPHORES = 20_000;

  @Test
  void aPrefixWatchLargerThanTheUnreadCapSyncsWithEverySemaphoreToldOnce() throws Exception {
    // 1 MiB unread: the 20,000 states below are about 3 MiB
    ClientLimits limits = ClientLimits.DEFAULT.withMaxUnreadBytes(1L << 20);
    try (EmbeddedSemafor semafor =
        EmbeddedSemafor.start(ServerConfig.builder().port(0).clientLimits(limits))) {
      SemaforClient client = semafor.client();
      List<CompletableFuture<Boolean>> creates = new ArrayList<>();
      for (int i = 0; i < SEMAPHORES; i++) {
        creates.add(
            client
                .semaphore(String.format("jobs/%05d", i))
                .createAsync(i, io.semafor.SemaphoreOptions.DEFAULT));
        if (creates.size() == 5_000) { // within the replies a session may leave unacknowledged
          CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
          creates.clear();
        }
      }
      CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      List<SemaphoreWatch.Event> events = new CopyOnWriteArrayList<>();
      try (SemaphoreWatch watch = client.watchPrefix("jobs/", false, events::add)) {
        assertThat(watch.awaitSynced(Duration.ofSeconds(60))).isTrue();
        Set<String> told = new HashSet<>();
        int changed = 0;
        for (SemaphoreWatch.Event e : events) {
          if (e instanceof SemaphoreWatch.Changed c) {
            told.add(c.state().name());
            changed++;
          }
          assertThat(e).isNotInstanceOf(SemaphoreWatch.Resynced.class);
        }
        assertThat(told).hasSize(SEMAPHORES);
        assertThat(changed).as("each told once: no start over").isEqualTo(SEMAPHORES);

        client.semaphore("jobs/00007").increment(1);
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    events.stream()
                        .anyMatch(
                            e ->
                                e instanceof SemaphoreWatch.Changed c
                                    && c.state().name().equals("jobs/00007")
                                    && c.state().value() == 8));
      }
    }
  }
}
