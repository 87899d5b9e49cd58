package io.semafor.replication.group;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a leader calls a member unreachable, the same rule for every replicator: it has not heard
 * from it for longer than {@link #limit} — the election timeout (the time a follower waits for its
 * leader before it gives up), but at least {@link #FLOOR}, so that a healthy follower on a busy
 * machine, answering a heartbeat late, is not shown as lost. Followers answer every heartbeat, so a
 * member past the limit is down, cut off or frozen. Pure: times are arguments.
 */
public final class Silence {
  /** The shortest silence called unreachable, whatever the election timeout. */
  public static final Duration FLOOR = Duration.ofSeconds(1);

  private Silence() {}

  /** The silence past which a member is unreachable, for an election timeout of {@code timeout}. */
  public static Duration limit(Duration electionTimeout) {
    return electionTimeout.compareTo(FLOOR) > 0 ? electionTimeout : FLOOR;
  }

  /**
   * Whether a member the leader last heard from {@code sinceMillis} ago (null: never, since the
   * leader's member started {@code upMillis} ago) is unreachable.
   */
  public static boolean unreachable(
      @Nullable Long sinceMillis, long upMillis, Duration electionTimeout) {
    long silent = sinceMillis == null ? upMillis : sinceMillis;
    return silent > limit(electionTimeout).toMillis();
  }
}
