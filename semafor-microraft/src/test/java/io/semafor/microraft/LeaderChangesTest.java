package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Each change of the leader a member sees is said once, with its reason. */
class LeaderChangesTest {
  private final LeaderChanges n1 = new LeaderChanges("n1");
  private static final Map<String, Long> HEARD = Map.of("n2", 1_500L, "n3", 20L);

  /** n2 last heard from 1,500 ms ago, n3 20 ms ago, anyone else never. */
  private static @Nullable Long heard(String id) {
    return HEARD.get(id);
  }

  @Test
  void aFollowerSaysOnceWhomItFollows() {
    assertThat(n1.observe(1, "", LeaderChangesTest::heard)).isNull();
    assertThat(n1.observe(1, "n2", LeaderChangesTest::heard)).isEqualTo("n1 follows n2 (term 1)");
    assertThat(n1.observe(1, "n2", LeaderChangesTest::heard)).isNull();
    assertThat(n1.observe(2, "n2", LeaderChangesTest::heard)).isNull();
  }

  @Test
  void aLostLeaderIsSaidWithWhenItWasLastHeardFrom() {
    n1.observe(1, "n2", LeaderChangesTest::heard);
    assertThat(n1.observe(1, "", LeaderChangesTest::heard))
        .isEqualTo(
            "n1 lost its leader n2 (term 1): last heard from it 1,500 ms ago; an election"
                + " follows");
    assertThat(n1.observe(2, "n3", LeaderChangesTest::heard)).isEqualTo("n1 follows n3 (term 2)");
  }

  @Test
  void aLeaderReplacedWithoutAGapNamesTheOneBefore() {
    n1.observe(1, "n2", LeaderChangesTest::heard);
    assertThat(n1.observe(2, "n3", LeaderChangesTest::heard))
        .isEqualTo("n1 follows n3 (term 2), which replaced n2");
  }

  @Test
  void becomingTheLeaderIsLeftToTheReplicatorsOwnLine() {
    assertThat(n1.observe(1, "n1", LeaderChangesTest::heard)).isNull();
  }

  @Test
  void aLeaderThatLosesItsMajoritySaysSo() {
    n1.observe(1, "n1", LeaderChangesTest::heard);
    assertThat(n1.observe(1, "", LeaderChangesTest::heard))
        .isEqualTo("n1 no longer leads (term 1): a majority stopped answering it");
  }

  @Test
  void aLeaderDeposedByANewerTermSaysSoAndNamesItsSuccessor() {
    n1.observe(1, "n1", LeaderChangesTest::heard);
    assertThat(n1.observe(2, "", LeaderChangesTest::heard))
        .isEqualTo("n1 no longer leads (term 2): another member began an election");
    n1.observe(1, "n1", LeaderChangesTest::heard);
    assertThat(n1.observe(3, "n3", LeaderChangesTest::heard))
        .isEqualTo("n1 no longer leads; the leader is n3 (term 3)");
  }

  @Test
  void aLeaderNeverHeardFromIsSaidSo() {
    n1.observe(1, "n9", LeaderChangesTest::heard);
    assertThat(n1.observe(1, "", LeaderChangesTest::heard))
        .isEqualTo("n1 lost its leader n9 (term 1): never heard from it; an election follows");
  }
}
