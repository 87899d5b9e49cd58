package io.semafor.raft;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.server.leader.LogAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts a leader's log appender that has sent its follower nothing for {@link #SILENCE_LIMIT}
 * (decision 0035).
 *
 * <p>A healthy appender sends every follower at least a heartbeat every few hundred milliseconds,
 * and keeps trying while the follower is down. But Ratis's appender, once it has streamed a
 * snapshot to a follower, waits for the answer with no bound (the stream's timeout is dropped once
 * the stream is completed), so a connection that died silently after the last chunk holds it
 * forever: the follower never catches up, and its pre-votes are refused because the others hear the
 * leader (found by the fault harness). The watch closes the member's gRPC connection to the
 * follower, which fails the stream and ends the wait, and restarts the appender through Ratis's own
 * {@code LeaderState.restart}; the new appender connects afresh and sends the snapshot again. (The
 * connection must go too: a new appender that starts with a snapshot reused the dead one and waited
 * forever again, restarted every 30 s.)
 *
 * <p>{@link #SILENCE_LIMIT} is above the 24 s Ratis allows an install-snapshot stream (the request
 * timeout, 3 s, times the 8 requests it keeps outstanding), so a stream Ratis itself still waits
 * for is left alone. Thread-safe.
 */
final class AppenderWatch {
  private static final Logger log = LoggerFactory.getLogger(AppenderWatch.class);

  /** How long an appender may send nothing before it is restarted. */
  static final Duration SILENCE_LIMIT = Duration.ofSeconds(30);

  /** How often {@link #check} should run. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(5);

  /** One appender as the watch sees it: how long it has been silent, and how to restart it. */
  interface Watched {
    /** Whether it still runs (a stopped one is forgotten). */
    boolean running();

    /** Milliseconds since it last sent its follower anything. */
    long silentMillis();

    /** Stops it and starts a new one for the same follower. */
    void restart();

    /** Its name, for the log. */
    String name();

    /** Where its follower stands, for an operator. */
    default Follower follower() {
      return new Follower(name(), -1, -1, silentMillis(), null);
    }
  }

  /**
   * A follower as its leader's appender sees it.
   *
   * @param id the follower's member id
   * @param matchIndex the last index the follower is known to hold (-1: none yet)
   * @param nextIndex the next index the appender sends it
   * @param silentMillis milliseconds since the appender last sent it anything
   * @param sinceHeardMillis milliseconds since the leader last had an answer from it (Ratis counts
   *     from the appender's start until the first), or null if not known
   */
  record Follower(
      String id,
      long matchIndex,
      long nextIndex,
      long silentMillis,
      @org.jspecify.annotations.Nullable Long sinceHeardMillis) {}

  /**
   * The followers of the running appenders, by id: empty on a follower. A follower missing from a
   * leader's list has no appender (not a member, or its appender stopped).
   */
  List<Follower> followers() {
    List<Follower> out = new ArrayList<>();
    for (Watched a : appenders) {
      if (a.running()) {
        out.add(a.follower());
      }
    }
    out.sort(java.util.Comparator.comparing(Follower::id));
    return out;
  }

  private final Set<Watched> appenders = ConcurrentHashMap.newKeySet();
  private final AtomicLong restarts = new AtomicLong();

  /** Watches {@code appender} from now on, until it stops. */
  void watch(LogAppender appender) {
    watch(new RatisAppender(appender));
  }

  /** Watches {@code appender} (tests give fakes). */
  void watch(Watched appender) {
    appenders.add(appender);
  }

  /**
   * Forgets appenders that stopped and restarts those silent for {@link #SILENCE_LIMIT} or more;
   * returns those it restarted. Never throws: a restart that fails is logged and tried again at the
   * next check.
   */
  List<Watched> check() {
    List<Watched> restarted = new ArrayList<>();
    for (Iterator<Watched> it = appenders.iterator(); it.hasNext(); ) {
      Watched a = it.next();
      try {
        if (!a.running()) {
          it.remove();
          continue;
        }
        long silent = a.silentMillis();
        if (silent >= SILENCE_LIMIT.toMillis()) {
          log.warn(
              "{} has sent its follower nothing for {} ms (stuck waiting on a dead connection):"
                  + " restarting it",
              a.name(),
              silent);
          a.restart();
          it.remove(); // its replacement is watched once Ratis makes it
          restarts.incrementAndGet();
          restarted.add(a);
        }
      } catch (RuntimeException e) {
        log.warn("checking or restarting {} failed; trying again at the next check", a.name(), e);
      }
    }
    return restarted;
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

    /**
     * Closes the connection to the follower, then has Ratis make a new appender. Closing the
     * connection is what ends the old appender's wait, and what the new one needs: it reuses the
     * member's cached gRPC channel, and a new appender that starts with a snapshot streams it into
     * the same dead connection and waits forever again (found by the fault harness: a new member
     * restarted every 30 s without ever receiving a byte, five nodes, run 27 of 2026-11-25).
     */
    @Override
    public void restart() {
      if (appender instanceof org.apache.ratis.grpc.server.GrpcLogAppender grpc) {
        grpc.getServerRpc().getProxies().resetProxy(appender.getFollowerId());
      }
      appender.getLeaderState().restart(appender);
    }

    @Override
    public String name() {
      return appender.toString();
    }

    @Override
    public Follower follower() {
      var f = appender.getFollower();
      return new Follower(
          f.getId().toString(),
          f.getMatchIndex(),
          f.getNextIndex(),
          f.getLastRpcSendTime().elapsedTimeMs(),
          f.getLastRpcResponseTime().elapsedTimeMs());
    }
  }
}
