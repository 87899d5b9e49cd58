package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;

import io.microraft.RaftRole;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** When a follower should have given its leader up: MicroRaft's own rule, checked from outside. */
class SilentLeaderWatchTest {
  private static final MemberEndpoint LEADER = new MemberEndpoint("n1", "127.0.0.1", 7500, 7400);
  private static final long GRACE = 5_000;

  @Test
  void aFollowerWhoseLeaderIsSilentPastTheGraceMissedIt() {
    assertThat(
            SilentLeaderWatch.missed(RaftRole.FOLLOWER, LEADER, Optional.of(1_000L), 6_000, GRACE))
        .isTrue();
  }

  @Test
  void aFollowerWhoseLeaderWasHeardWithinTheGraceDidNot() {
    assertThat(
            SilentLeaderWatch.missed(RaftRole.FOLLOWER, LEADER, Optional.of(1_001L), 6_000, GRACE))
        .isFalse();
  }

  @Test
  void aMemberWithNoLeaderIsLeftToMicroRaft() {
    assertThat(
            SilentLeaderWatch.missed(RaftRole.FOLLOWER, null, Optional.of(1_000L), 60_000, GRACE))
        .isFalse();
  }

  @Test
  void aFollowerThatNeverHeardItsLeaderIsLeftToMicroRaft() {
    assertThat(SilentLeaderWatch.missed(RaftRole.FOLLOWER, LEADER, Optional.empty(), 60_000, GRACE))
        .isFalse();
  }

  @Test
  void aLearnerNeverStands() {
    assertThat(
            SilentLeaderWatch.missed(RaftRole.LEARNER, LEADER, Optional.of(1_000L), 60_000, GRACE))
        .isFalse();
  }

  @Test
  void aLeaderOrCandidateIsNotFollowingAnyone() {
    assertThat(
            SilentLeaderWatch.missed(RaftRole.LEADER, LEADER, Optional.of(1_000L), 60_000, GRACE))
        .isFalse();
    assertThat(
            SilentLeaderWatch.missed(
                RaftRole.CANDIDATE, LEADER, Optional.of(1_000L), 60_000, GRACE))
        .isFalse();
  }
}
