package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the console's stream slots are shared (decision 0047): 16, 8 / 4 per principal, 4 kept. */
class StreamSlotsTest {
  private final StreamSlots slots = new StreamSlots(16, 8, 4, 4);

  private int takeAll(String principal, boolean operator) {
    int taken = 0;
    while (taken < 100 && slots.take(principal, operator) == null) {
      taken++;
    }
    return taken;
  }

  @Test
  void aPrincipalWithoutClusterGetsFourAndOneWithItEight() {
    assertThat(takeAll("bob", false)).isEqualTo(4);
    assertThat(slots.take("bob", false)).contains("already has 4 console streams");
    assertThat(takeAll("ops", true)).isEqualTo(8);
  }

  @Test
  void principalsWithoutClusterShareTwelveAndTheLastFourStayForOperators() {
    for (String p : new String[] {"a", "b", "c"}) {
      assertThat(takeAll(p, false)).isEqualTo(4);
    }
    assertThat(slots.take("d", false))
        .contains(
            "the last 4 of this node's 16 console streams are kept for principals with the"
                + " 'cluster' permission");
    assertThat(takeAll("ops", true)).isEqualTo(4);
    assertThat(slots.take("root", true)).contains("all 16 console streams of this node are open");
  }

  @Test
  void aSlotGivenBackCanBeTakenAgain() {
    takeAll("a", false);
    takeAll("b", false);
    takeAll("c", false);
    slots.give("b");
    assertThat(slots.open()).isEqualTo(11);
    assertThat(slots.take("d", false)).isNull();
    slots.give("nobody"); // never took one: nothing changes
    assertThat(slots.open()).isEqualTo(12);
  }
}
