package io.semafor.server;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.replication.Replicator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live sessions as the edge sees them: which connection each is attached to (at most one), and
 * when each was last heard from. Keep-alives are not logged, so liveness lives here: a session
 * silent for its TTL gets an {@code ExpireSession} proposed; losing its connection does not end it,
 * so a client that reconnects in time resumes. Thread-safe.
 */
final class Sessions {
  private static final Logger log = LoggerFactory.getLogger(Sessions.class);

  /** One live session. */
  static final class Live {
    final long id;
    final long ttlNanos;
    volatile long lastHeard;
    volatile @Nullable Connection connection;
    volatile @Nullable Future<?> liveness;

    Live(long id, long ttlNanos, long now) {
      this.id = id;
      this.ttlNanos = ttlNanos;
      this.lastHeard = now;
    }

    /** A frame came from the session's client. */
    void heard() {
      lastHeard = System.nanoTime();
    }
  }

  private final ConcurrentHashMap<Long, Live> live = new ConcurrentHashMap<>();
  private final Timers timers;
  private volatile @Nullable Replicator replicator;

  Sessions(Timers timers) {
    this.timers = timers;
  }

  void replicator(Replicator value) {
    replicator = value;
  }

  /** The machine opened a session: start watching its liveness from now. */
  void started(long id, long ttlNanos) {
    Live session = new Live(id, ttlNanos, System.nanoTime());
    live.put(id, session);
    watch(session, ttlNanos);
  }

  /**
   * The machine ended a session: forget it, and tell its connection whether it ended by expiry (the
   * client did not ask for it) or by its own close.
   */
  void ended(long id, boolean expired) {
    Live session = live.remove(id);
    if (session == null) {
      return;
    }
    Future<?> liveness = session.liveness;
    if (liveness != null) {
      liveness.cancel(false);
    }
    Connection connection = session.connection;
    if (connection != null) {
      connection.sessionEnded(id, expired);
    }
  }

  @Nullable Live get(long id) {
    return live.get(id);
  }

  int count() {
    return live.size();
  }

  /**
   * Attaches a session to a connection, detaching (and closing) any other connection it had, as a
   * client resuming from a new connection makes its old one stale.
   */
  void attach(Live session, Connection connection) {
    session.heard();
    Connection previous = session.connection;
    session.connection = connection;
    if (previous != null && previous != connection) {
      previous.supersede();
    }
  }

  /** The connection closed: the session lives on until its TTL passes without a resume. */
  void detach(long id, Connection connection) {
    Live session = live.get(id);
    if (session != null && session.connection == connection) {
      session.connection = null;
    }
  }

  /** Every session was heard from now: after a leader change each gets a full TTL (SPEC §9). */
  void heardAll() {
    for (Live session : live.values()) {
      session.heard();
    }
  }

  /** The machine was restored: track exactly its sessions, each with a full TTL from now. */
  void restored(List<Effect.SessionStarted> sessions) {
    for (Live old : live.values()) {
      Future<?> liveness = old.liveness;
      if (liveness != null) {
        liveness.cancel(false);
      }
    }
    live.clear();
    for (Effect.SessionStarted s : sessions) {
      started(s.sessionId(), s.ttl());
    }
  }

  /** Where replies for a session go now, if it is attached. */
  @Nullable Connection connection(long id) {
    Live session = live.get(id);
    return session == null ? null : session.connection;
  }

  private void watch(Live session, long delayNanos) {
    session.liveness = timers.schedule(() -> check(session), delayNanos);
  }

  /**
   * Proposes the expiry of a session silent for its TTL; otherwise looks again when it would be.
   * After proposing, it looks again a TTL later: the machine refuses an expiry sooner than a TTL
   * after the session's last logged command, and the session may have been heard meanwhile.
   */
  private void check(Live session) {
    if (live.get(session.id) != session) {
      return;
    }
    long silent = System.nanoTime() - session.lastHeard;
    if (silent < session.ttlNanos) {
      watch(session, session.ttlNanos - silent);
      return;
    }
    Replicator r = replicator;
    if (r != null) {
      try {
        r.submit(new Command.ExpireSession(session.id), null);
      } catch (IllegalStateException closing) {
        log.debug("not expiring session {}: the replicator is closed", session.id);
        return;
      }
    }
    watch(session, session.ttlNanos);
  }
}
