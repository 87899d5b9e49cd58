package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker itself: it must find what it is for, and nothing else. */
class HistoryCheckerTest {
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
  void aHandOffAtTheSameInstantIsNotAnOverlap() {
    assertThat(HistoryChecker.overCapacity(List.of(hold(10, 20, 1), hold(20, 30, 2)), 1)).isEmpty();
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
}
