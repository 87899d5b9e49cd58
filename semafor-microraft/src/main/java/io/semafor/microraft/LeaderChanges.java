package io.semafor.microraft;

import java.util.Locale;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The one line a member logs when the leader it knows changes, with why (issue 34: an operator
 * reads each leader change once, with its reason, and no WARN on a normal start). MicroRaft's own
 * election chatter — each election round that timed out, a follower with no leader yet — is part of
 * every start and is kept out of the log (logback-server.xml); this says what came of it. The new
 * leader's own line, once its first entry applies, is the replicator's ("leads the group").
 *
 * <p>Pure: the report's term and leader and when the old leader was last heard from go in, a line
 * or nothing comes out. Not thread-safe: the member's thread only.
 */
final class LeaderChanges {
  private final String self;
  private String leader = "";
  private int term;

  /** For member {@code self}, which starts knowing no leader. */
  LeaderChanges(String self) {
    this.self = self;
  }

  /**
   * The line to log now that MicroRaft reports {@code leader} ({@code ""}: none known) in {@code
   * term}, or null if the leader did not change or this member became it.
   *
   * @param heardMillis how long ago a member was last heard from, null if never
   */
  @Nullable String observe(int term, String leader, Function<String, @Nullable Long> heardMillis) {
    String was = this.leader;
    int wasTerm = this.term;
    this.term = term;
    if (leader.equals(was)) {
      return null;
    }
    this.leader = leader;
    if (leader.isEmpty()) {
      Long heard = heardMillis.apply(was);
      if (was.equals(self)) {
        return self
            + " no longer leads (term "
            + term
            + "): "
            + (term == wasTerm
                ? "a majority stopped answering it"
                : "another member began an election");
      }
      return self
          + " lost its leader "
          + was
          + " (term "
          + term
          + "): "
          + (heard == null
              ? "never heard from it"
              : "last heard from it " + String.format(Locale.ROOT, "%,d", heard) + " ms ago")
          + "; an election follows";
    }
    if (leader.equals(self)) {
      return null; // said once its first entry applies: "leads the group"
    }
    if (was.equals(self)) {
      return self + " no longer leads; the leader is " + leader + " (term " + term + ")";
    }
    return self
        + " follows "
        + leader
        + " (term "
        + term
        + (was.isEmpty() ? ")" : "), which replaced " + was);
  }
}
