package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.SemaphoreOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#slots: slot numbers on semaphores with a capacity. */
class SlotTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  @Test
  void anOwnedPermitGetsTheLowestFreeSlot() {
    c.create("copiers", 3, SemaphoreOptions.withCapacity(3));
    assertThat(c.granted(c.acquireOwned("copiers", 1, 0)).slots()).containsExactly(1L);
    assertThat(c.granted(c.acquireOwned("copiers", 1, 0)).slots()).containsExactly(2L);
  }

  @Test
  void nPermitsGetTheNLowestFreeSlots() {
    c.create("copiers", 5, SemaphoreOptions.withCapacity(5));
    c.acquireOwned("copiers", 1, 0);
    assertThat(c.granted(c.acquireOwned("copiers", 3, 0)).slots()).containsExactly(2L, 3L, 4L);
  }

  @Test
  void aReleasedSlotIsTheNextOneGiven() {
    c.create("copiers", 3, SemaphoreOptions.withCapacity(3));
    TestClient a = h.connect();
    TestClient b = h.connect();
    a.acquireOwned("copiers", 1, 0);
    b.acquireOwned("copiers", 1, 0);
    a.close();
    assertThat(c.granted(c.acquireOwned("copiers", 1, 0)).slots()).containsExactly(1L);
  }

  @Test
  void releaseOfNFreesTheMostRecentlyTakenSlots() {
    c.create("copiers", 3, SemaphoreOptions.withCapacity(3));
    c.acquireOwned("copiers", 1, 0);
    c.acquireOwned("copiers", 1, 0);
    c.release("copiers", 1);
    assertThat(h.inspect("copiers").holders().get(0).slots()).containsExactly(1L);
  }

  @Test
  void releaseSlotFreesThatSlot() {
    c.create("copiers", 3, SemaphoreOptions.withCapacity(3));
    c.acquireOwned("copiers", 2, 0);
    assertThat(c.releaseSlot("copiers", 1)).isEqualTo(new Result.Released(1));
    assertThat(h.inspect("copiers").holders().get(0).slots()).containsExactly(2L);
    assertThat(h.value("copiers")).isEqualTo(2);
  }

  @Test
  void releasingASlotNotHeldIsInvalidAndChangesNothing() {
    c.create("copiers", 3, SemaphoreOptions.withCapacity(3));
    c.acquireOwned("copiers", 1, 0);
    Result.Failure failure = (Result.Failure) c.releaseSlot("copiers", 2);
    assertThat(failure.message()).isEqualTo("slot: the session holds no slot 2 of \"copiers\"");
    assertThat(h.value("copiers")).isEqualTo(2);
  }

  @Test
  void aSemaphoreWithoutCapacityHasNoSlots() {
    c.create("x", 3);
    assertThat(c.granted(c.acquireOwned("x", 2, 0)).slots()).isEmpty();
  }

  @Test
  void aNonOwnedTakeHoldsNoSlot() {
    c.create("copiers", 3, SemaphoreOptions.withCapacity(3));
    assertThat(c.granted(c.acquire("copiers", 1, 0)).slots()).isEmpty();
    assertThat(c.granted(c.acquireOwned("copiers", 1, 0)).slots()).containsExactly(1L);
  }

  @Test
  void aCapacityAboveTheSlotLimitIsACeilingWithoutSlots() {
    c.create("big", 70_000, SemaphoreOptions.withCapacity(70_000));
    assertThat(c.granted(c.acquireOwned("big", 2, 0)).slots()).isEmpty();
  }

  @Test
  void slotsAreFreedWhenTheSessionEnds() {
    c.create("copiers", 2, SemaphoreOptions.withCapacity(2));
    TestClient a = h.connect();
    a.acquireOwned("copiers", 2, 0);
    a.close();
    assertThat(c.granted(c.acquireOwned("copiers", 2, 0)).slots()).isEqualTo(List.of(1L, 2L));
  }
}
