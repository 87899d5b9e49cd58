package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checks themselves: each finds the bug it is for, planted in a history, and nothing else; and
 * the recorder the history tests use, with real threads against a semaphore broken on purpose,
 * gives the checker something it can catch.
 */
class HistoryCheckerTest {
  /** The fault tests' load: eight clients on two permits. */
  private static final int CLIENTS = 8;

  private static final int PERMITS = 2;
  private static final Duration RUN = Duration.ofSeconds(1);

  /** A hold certainly held from {@code from} to {@code to}, with its token as its sequence. */
  private static History.Hold hold(long from, long to, long token) {
    return new History.Hold(0, 1, from - 1, from, token, token, to, to + 1);
  }

  @Test
  void overlappingHoldsBeyondTheCapacityAreFound() {
    List<History.Hold> holds = List.of(hold(10, 20, 1), hold(15, 25, 2), hold(18, 30, 3));
    assertThat(HistoryChecker.overCapacity(holds, 2)).hasSize(1);
    assertThat(HistoryChecker.overCapacity(holds, 3)).isEmpty();
  }

  @Test
  void aHoldOfSeveralPermitsCountsThemAll() {
    History.Hold two = new History.Hold(0, 2, 9, 10, 1, 1, 20, 21);
    assertThat(HistoryChecker.overCapacity(List.of(two, hold(15, 25, 2)), 2)).hasSize(1);
  }

  @Test
  void aHandOffAtTheSameInstantIsNotAnOverlap() {
    assertThat(HistoryChecker.overCapacity(List.of(hold(10, 20, 1), hold(20, 30, 2)), 1)).isEmpty();
  }

  @Test
  void holdsOverlappingOnlyWhileAcquiringOrReleasingAreNotOverCapacity() {
    // the second was invoked before the first's release returned, but returned after its
    // invocation: the server may have granted it the moment the first was given back
    History.Hold first = new History.Hold(0, 1, 0, 10, 1, 1, 20, 40);
    History.Hold second = new History.Hold(1, 1, 15, 30, 2, 2, 50, 51);
    assertThat(HistoryChecker.overCapacity(List.of(first, second), 1)).isEmpty();
  }

  @Test
  void aClientThatNeverReleasedHoldsForever() {
    History.Hold died = new History.Hold(0, 1, 9, 10, 1, 1, Long.MAX_VALUE, Long.MAX_VALUE);
    assertThat(HistoryChecker.overCapacity(List.of(died, hold(1_000, 1_010, 2)), 1)).hasSize(1);
  }

  @Test
  void aTokenSmallerThanOneGrantedEarlierInRealTimeIsFound() {
    List<History.Hold> holds = List.of(hold(10, 20, 5), hold(30, 40, 4));
    assertThat(HistoryChecker.tokensOutOfOrder(holds)).hasSize(1);
    assertThat(HistoryChecker.tokensOutOfOrder(List.of(hold(10, 20, 4), hold(30, 40, 5))))
        .isEmpty();
  }

  @Test
  void concurrentAcquisitionsMayHaveTokensInEitherOrder() {
    History.Hold a = new History.Hold(0, 1, 0, 50, 9, 9, 60, 61);
    History.Hold b = new History.Hold(1, 1, 10, 40, 3, 3, 45, 46);
    assertThat(HistoryChecker.tokensOutOfOrder(List.of(a, b))).isEmpty();
  }

  @Test
  void aSequenceSmallerThanOneGrantedEarlierInRealTimeIsFound() {
    // tokens in order, arrival sequences not: a grant out of FIFO order
    History.Hold first = new History.Hold(0, 1, 9, 10, 1, 7, 20, 21);
    History.Hold later = new History.Hold(1, 1, 29, 30, 2, 6, 40, 41);
    assertThat(HistoryChecker.sequencesOutOfOrder(List.of(first, later))).hasSize(1);
    assertThat(HistoryChecker.tokensOutOfOrder(List.of(first, later))).isEmpty();
  }

  @Test
  void aTokenOutOfOrderIsNotTakenForASequenceOutOfOrder() {
    History.Hold first = new History.Hold(0, 1, 9, 10, 7, 1, 20, 21);
    History.Hold later = new History.Hold(1, 1, 29, 30, 6, 2, 40, 41);
    assertThat(HistoryChecker.sequencesOutOfOrder(List.of(first, later))).isEmpty();
    assertThat(HistoryChecker.tokensOutOfOrder(List.of(first, later))).hasSize(1);
  }

  @Test
  void concurrentAcquisitionsMayHaveSequencesInEitherOrder() {
    History.Hold a = new History.Hold(0, 1, 0, 50, 1, 9, 60, 61);
    History.Hold b = new History.Hold(1, 1, 10, 40, 2, 3, 45, 46);
    assertThat(HistoryChecker.sequencesOutOfOrder(List.of(a, b))).isEmpty();
  }

  /**
   * The planted bug: a semaphore that gives each grant back to the server the moment it arrives,
   * while its client goes on holding it, so every client can hold one of the {@code PERMITS} at
   * once. Tokens and sequences stay the server's own, in order: only the capacity is broken.
   */
  private static History.Acquirer givingBackAtOnce(NamedSemaphore pool) {
    return () -> {
      Permit permit = pool.acquirePermit(1);
      permit.release();
      return new History.Grant(permit.token(), permit.sequence(), () -> {});
    };
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theHistoryTestsRecorderCatchesASemaphoreThatLetsEveryClientIn() throws Exception {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      semafor.client().create("pool", PERMITS);
      History history = new History(); // the hold every history test uses
      List<History.Acquirer> broken = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        broken.add(givingBackAtOnce(semafor.newClient().semaphore("pool")));
      }
      RecordedClients.run(history, broken, RUN).finish(Duration.ofSeconds(30));

      List<History.Hold> holds = history.holds();
      assertThat(holds).hasSizeGreaterThan(CLIENTS);
      assertThat(HistoryChecker.overCapacity(holds, PERMITS))
          .as("over-grants found in %d holds", holds.size())
          .isNotEmpty();
      long shortest =
          holds.stream()
              .mapToLong(h -> h.releaseInvoked() - h.acquireReturned())
              .min()
              .orElseThrow();
      assertThat(shortest)
          .as("shortest certainly-held interval, in ns")
          .isGreaterThanOrEqualTo(history.hold().toNanos());
      assertThat(HistoryChecker.tokensOutOfOrder(holds)).isEmpty();
      assertThat(HistoryChecker.sequencesOutOfOrder(holds)).isEmpty();
    }
  }
}
