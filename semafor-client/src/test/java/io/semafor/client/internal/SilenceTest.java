package io.semafor.client.internal;

import static io.semafor.client.internal.Silence.ANSWER_DEADLINE;
import static io.semafor.client.internal.Silence.AVOID_SILENT;
import static io.semafor.client.internal.Silence.PROBE_AFTER;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.internal.Silence.Action;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A server that stops answering is probed, then left, then avoided for a while (fake clock). */
class SilenceTest {
  private static final long T0 = 1_000_000_000L;
  private static final InetSocketAddress N1 = InetSocketAddress.createUnresolved("n1", 7400);
  private static final InetSocketAddress N2 = InetSocketAddress.createUnresolved("n2", 7400);
  private static final InetSocketAddress N3 = InetSocketAddress.createUnresolved("n3", 7400);

  private final Silence silence = new Silence();

  @Test
  void nothingWaitingIsNeverSilence() {
    assertThat(silence.tick(T0 + 60 * PROBE_AFTER, T0, false)).isEqualTo(Action.NONE);
  }

  @Test
  void aWaitingClientProbesOnceNothingCameForTheProbeDelay() {
    assertThat(silence.tick(T0 + PROBE_AFTER - 1, T0, true)).isEqualTo(Action.NONE);
    assertThat(silence.tick(T0 + PROBE_AFTER, T0, true)).isEqualTo(Action.PROBE);
    assertThat(silence.tick(T0 + PROBE_AFTER + 1, T0, true))
        .as("one probe at a time")
        .isEqualTo(Action.NONE);
  }

  @Test
  void aProbeUnansweredForTheDeadlineLeavesTheConnection() {
    long probe = T0 + PROBE_AFTER;
    silence.tick(probe, T0, true);
    assertThat(silence.tick(probe + ANSWER_DEADLINE - 1, T0, true)).isEqualTo(Action.NONE);
    assertThat(silence.tick(probe + ANSWER_DEADLINE, T0, true)).isEqualTo(Action.LEAVE);
  }

  @Test
  void anyFrameAfterTheProbeMeansTheServerIsThere() {
    long probe = T0 + PROBE_AFTER;
    silence.tick(probe, T0, true);
    long pong = probe + 1_000;
    assertThat(silence.tick(pong + 1, pong, true)).isEqualTo(Action.NONE);
    assertThat(silence.tick(probe + ANSWER_DEADLINE, probe + ANSWER_DEADLINE - 1_000, true))
        .as("not left: frames keep coming")
        .isEqualTo(Action.NONE);
    assertThat(silence.tick(pong + PROBE_AFTER, pong, true))
        .as("a later silence is probed again")
        .isEqualTo(Action.PROBE);
  }

  @Test
  void aLeftAddressIsDialledLastForAWhileThenInTurnAgain() {
    silence.left(N1, T0);
    assertThat(silence.order(null, List.of(N1, N2, N3), T0 + 1)).containsExactly(N2, N3);
    assertThat(silence.order(null, List.of(N1, N2, N3), T0 + AVOID_SILENT))
        .containsExactly(N1, N2, N3);
  }

  @Test
  void aLeaderNamedByAFollowerIsNotFollowedBackToTheSilentAddress() {
    silence.left(N1, T0);
    assertThat(silence.order(N1, List.of(N2, N3, N1), T0 + 1)).containsExactly(N2, N3);
    assertThat(silence.avoided(N1, T0 + 1)).isTrue();
    assertThat(silence.order(N3, List.of(N1, N2, N3), T0 + 1)).containsExactly(N3, N2, N3);
  }

  @Test
  void aSilentAddressIsStillDialledWhenItIsTheOnlyOne() {
    silence.left(N1, T0);
    assertThat(silence.order(null, List.of(N1), T0 + 1)).containsExactly(N1);
  }
}
