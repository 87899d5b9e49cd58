package io.semafor.raft;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.server.leader.LogAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts a leader's log appender that is stuck, in either of the two ways the fault harness found
 * (decision 0035):
 *
 * <ul>
 *   <li><b>Silent</b> for {@link #SILENCE_LIMIT}. A healthy appender sends every follower at least
 *       a heartbeat every few hundred milliseconds, and keeps trying while the follower is down.
 *       But Ratis's appender, once it has streamed a snapshot to a follower, waits for the answer
 *       with no bound (the stream's timeout is dropped once the stream is completed), so a
 *       connection that died silently after the last chunk holds it forever.
 *   <li><b>Answered but not catching up</b>: the follower has acknowledged some entry (one that has
 *       acknowledged none yet is being bootstrapped by Ratis and is judged only by the silence
 *       above), is behind the leader's log, has answered within {@link #ANSWERING_WITHIN}, and its
 *       match index has not moved for {@link #STALL_LIMIT}. Seen when the leader's record of the
 *       follower's match index was ahead of the follower's log: the follower answers every
 *       heartbeat "inconsistent, send me index i", and Ratis never sets the next index below the
 *       match index plus one, so it sends nothing older, forever.
 * </ul>
 *
 * <p>Either way the follower never catches up, its pre-votes are refused because the others hear
 * the leader, and with two such followers the leader can commit nothing while it still leads: the
 * cluster stops serving without an election. Restarting the appender through Ratis's own {@code
 * LeaderState.restart} interrupts a blocked wait and starts a new appender with a fresh record of
 * the follower (match index unknown, next index found again from the follower's answers); its first
 * heartbeat on a dead connection draws a reset, and gRPC reconnects.
 *
 * <p>{@link #SILENCE_LIMIT} is above the 24 s Ratis allows an install-snapshot stream (the request
 * timeout, 3 s, times the 8 requests it keeps outstanding), so a stream Ratis itself still waits
 * for is left alone. A snapshot install that takes longer than {@link #STALL_LIMIT} while the
 * follower answers would be restarted and sent again (Semafor's snapshots are a few megabytes at
 * most, sent in well under a second on a LAN). A follower that does not answer (down, cut off) is
 * not restarted: its appender keeps trying by itself. Thread-safe.
 */
final class AppenderWatch {
  private static final Logger log = LoggerFactory.getLogger(AppenderWatch.class);

  /** How long an appender may send nothing before it is restarted. */
  static final Duration SILENCE_LIMIT = Duration.ofSeconds(30);

  /**
   * How long a follower that answers may stay behind without progress before its appender is
   * restarted. Replication to a follower that answers moves within milliseconds, and a restart
   * costs only finding the follower's next index again; the cluster cannot commit while a majority
   * of followers is stuck this way, so this is kept short.
   */
  static final Duration STALL_LIMIT = Duration.ofSeconds(10);

  /** How often {@link #check} should run. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(5);

  /** One appender as the watch sees it: what it is sending to, and how to restart it. */
  interface Watched {
    /** Whether it still runs (a stopped one is forgotten). */
    boolean running();

    /** Milliseconds since it last sent its follower anything. */
    long silentMillis();

    /** Milliseconds since its follower last answered. */
    long unansweredMillis();

    /** The highest log index the leader knows its follower has. */
    long matchIndex();

    /** The leader's last log index. */
    long leaderLastIndex();

    /** Stops it and starts a new one for the same follower. */
    void restart();

    /** Its name, for the log. */
    String name();
  }

  /** How recently a follower must have answered for its lack of progress to count as stuck. */
  static final Duration ANSWERING_WITHIN = Duration.ofSeconds(5);

  /** Per watched appender: the match index last seen, and when it last changed (nanoTime). */
  private static final class Progress {
    long matchIndex = Long.MIN_VALUE;
    long since;
  }

  private final java.util.Map<Watched, Progress> appenders = new ConcurrentHashMap<>();
  private final AtomicLong restarts = new AtomicLong();

  /** Watches {@code appender} from now on, until it stops. */
  void watch(LogAppender appender) {
    watch(new RatisAppender(appender));
  }

  /** Watches {@code appender} (tests give fakes). */
  void watch(Watched appender) {
    appenders.put(appender, new Progress());
  }

  /** {@link #check(long)} now. */
  List<Watched> check() {
    return check(System.nanoTime());
  }

  /**
   * Forgets appenders that stopped and restarts those that are stuck at {@code nowNanos} ({@link
   * System#nanoTime()}): silent for {@link #SILENCE_LIMIT}, or with a follower that is behind, has
   * answered within {@link #ANSWERING_WITHIN}, and has made no progress for {@link #STALL_LIMIT}.
   * Returns those it restarted. Never throws: a restart that fails is logged and tried again at the
   * next check.
   */
  List<Watched> check(long nowNanos) {
    List<Watched> restarted = new ArrayList<>();
    for (java.util.Iterator<java.util.Map.Entry<Watched, Progress>> it =
            appenders.entrySet().iterator();
        it.hasNext(); ) {
      java.util.Map.Entry<Watched, Progress> e = it.next();
      Watched a = e.getKey();
      try {
        if (!a.running()) {
          it.remove();
          continue;
        }
        String why = whyStuck(a, e.getValue(), nowNanos);
        if (why != null) {
          log.warn("{} {}: restarting it", a.name(), why);
          a.restart();
          it.remove(); // its replacement is watched once Ratis makes it
          restarts.incrementAndGet();
          restarted.add(a);
        }
      } catch (RuntimeException ex) {
        log.warn("checking or restarting {} failed; trying again at the next check", a.name(), ex);
      }
    }
    return restarted;
  }

  /** Why {@code a} is stuck, or null if it is not. Updates its progress. */
  private static @org.jspecify.annotations.Nullable String whyStuck(
      Watched a, Progress p, long nowNanos) {
    long silent = a.silentMillis();
    if (silent >= SILENCE_LIMIT.toMillis()) {
      return "has sent its follower nothing for "
          + silent
          + " ms (stuck waiting on a dead connection)";
    }
    long match = a.matchIndex();
    if (match != p.matchIndex) {
      p.matchIndex = match;
      p.since = nowNanos;
      return null;
    }
    long stalled = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nowNanos - p.since);
    long leaderLast = a.leaderLastIndex();
    // a follower that has acknowledged nothing yet (a new member, or one just restarted) is being
    // bootstrapped by Ratis (snapshot, staging); only the silence above is judged for it
    if (match >= 0
        && match < leaderLast
        && stalled >= STALL_LIMIT.toMillis()
        && a.unansweredMillis() < ANSWERING_WITHIN.toMillis()) {
      return "has a follower that answers but has not moved past index "
          + match
          + " (the leader is at "
          + leaderLast
          + ") for "
          + stalled
          + " ms";
    }
    return null;
  }

  /** How many appenders it has restarted. */
  long restarts() {
    return restarts.get();
  }

  /** How many appenders it watches now. */
  int watching() {
    return appenders.size();
  }

  private record RatisAppender(LogAppender appender) implements Watched {
    @Override
    public boolean running() {
      return appender.isRunning();
    }

    @Override
    public long silentMillis() {
      return appender.getFollower().getLastRpcSendTime().elapsedTimeMs();
    }

    @Override
    public long unansweredMillis() {
      return appender.getFollower().getLastRpcResponseTime().elapsedTimeMs();
    }

    @Override
    public long matchIndex() {
      return appender.getFollower().getMatchIndex();
    }

    @Override
    public long leaderLastIndex() {
      org.apache.ratis.server.protocol.TermIndex last =
          appender.getRaftLog().getLastEntryTermIndex();
      return last == null ? -1 : last.getIndex();
    }

    @Override
    public void restart() {
      appender.getLeaderState().restart(appender);
    }

    @Override
    public String name() {
      return appender.toString();
    }
  }
}
