package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * 64 clients, each its own connection and thread, hammer 4 permits, holding each for {@link
 * History#DEFAULT_HOLD}. The history they record is checked by {@link HistoryChecker}: the server's
 * word is not taken for anything. With every session still open, all 4 permits must be back.
 */
class ContentionTest {
  private static final int CLIENTS = 64;
  private static final int PERMITS = 4;
  private static final Duration RUN = Duration.ofSeconds(3);

  @Test
  void sixtyFourClientsNeverHoldMoreThanFourPermitsAndGetThemInArrivalOrder() throws Exception {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      semafor.client().create("pool", PERMITS);
      History history = new History();
      List<History.Acquirer> pools = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        pools.add(History.ownedPermitsOf(semafor.newClient().semaphore("pool")));
      }
      RecordedClients.run(history, pools, RUN).finish(Duration.ofSeconds(30));

      List<History.Hold> holds = history.holds();
      assertThat(holds).hasSizeGreaterThan(CLIENTS);
      RecordedClients.assertSafeAndEveryPermitBack(
          holds, semafor.client().semaphore("pool"), PERMITS);
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        assertThat(holds.stream().filter(h -> h.client() == client).count())
            .as("acquisitions of client %d (FIFO: nobody starves)", c)
            .isPositive();
      }
    }
  }
}
