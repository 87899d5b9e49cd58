package io.semafor.server;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.SessionOwner;
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
 * so a client that reconnects in time resumes.
 *
 * <p>Silence is measured on a {@link ListeningClock}, which leaves out the time this process did
 * not run: a server paused past a session's TTL (GC, VM suspend, SIGSTOP) does not expire clients
 * whose keep-alives wait unread in its socket buffers. Thread-safe.
 */
final class Sessions {
  private static final Logger log = LoggerFactory.getLogger(Sessions.class);

  /** One live session. */
  static final class Live {
    final long id;
    final long ttlNanos;

    /** Who may resume it. */
    final SessionOwner owner;

    private final ListeningClock clock;

    /** When the client was last heard from, on {@link #clock}. */
    volatile long lastHeard;

    volatile @Nullable Connection connection;
    volatile @Nullable Future<?> liveness;

    /** Whose {@link SessionQuota} this session counts against; null if none (opened elsewhere). */
    volatile @Nullable String quotaKey;

    /** Expiries proposed since the client was last heard from; spaces out the next proposal. */
    int proposals;

    Live(long id, long ttlNanos, SessionOwner owner, ListeningClock clock) {
      this.id = id;
      this.ttlNanos = ttlNanos;
      this.owner = owner;
      this.clock = clock;
      this.lastHeard = clock.now();
    }

    /** A frame came from the session's client. */
    void heard() {
      lastHeard = clock.now();
    }
  }

  /**
   * The first re-proposal of an expiry the machine refused comes this soon, then twice as late each
   * time. The machine refuses an expiry sooner than a TTL after the session's last logged command,
   * which is stamped a little after this edge heard it (by the time it takes to apply, or to commit
   * in a cluster): looking again a whole TTL later made some sessions last twice their TTL.
   */
  static final long FIRST_RETRY_NANOS = 1_000_000L;

  private final ConcurrentHashMap<Long, Live> live = new ConcurrentHashMap<>();
  private final Timers timers;
  private final ListeningClock clock;
  private final SessionQuota quota;
  private volatile @Nullable Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;

  /**
   * Sessions whose liveness is watched on {@code timers}, which also tick {@code clock}, each given
   * back to {@code quota} when it ends.
   */
  Sessions(Timers timers, ListeningClock clock, SessionQuota quota) {
    this.timers = timers;
    this.clock = clock;
    this.quota = quota;
    timers.every(clock::tick, ListeningClock.TICK_NANOS);
  }

  void replicator(Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> value) {
    replicator = value;
  }

  /** The machine opened a session: start watching its liveness from now. */
  void started(long id, long ttlNanos, SessionOwner owner) {
    Live session = new Live(id, ttlNanos, owner, clock);
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
    forget(session);
    Connection connection = session.connection;
    if (connection != null) {
      connection.sessionEnded(id, expired);
    }
  }

  /** Stops watching a session that is gone, and gives it back to its owner's quota. */
  private void forget(Live session) {
    Future<?> liveness = session.liveness;
    if (liveness != null) {
      liveness.cancel(false);
    }
    String key = session.quotaKey;
    if (key != null) {
      session.quotaKey = null;
      quota.release(key);
    }
  }

  /**
   * The session {@code id}, opened for {@code owner}, counts against the owner's quota until it
   * ends. Called on the applying thread, right after the machine opened it; false (the caller gives
   * the quota back) if it has ended already.
   */
  boolean own(long id, String owner) {
    Live session = live.get(id);
    if (session == null) {
      return false;
    }
    session.quotaKey = owner;
    return true;
  }

  @Nullable Live get(long id) {
    return live.get(id);
  }

  int count() {
    return live.size();
  }

  /**
   * Nanoseconds since the client of session {@code id} was last heard from: any frame, keep-alives
   * included, on the listening clock. What expiry counts, where a session's last request counts
   * only commands. -1 if this node does not track the session (it has ended).
   */
  long sinceHeard(long id) {
    Live session = live.get(id);
    return session == null ? -1 : Math.max(0, clock.now() - session.lastHeard);
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

  /** The client of session {@code id} was heard from now (any frame). */
  void heard(long id) {
    Live session = live.get(id);
    if (session != null) {
      session.heard();
    }
  }

  /**
   * Every session was heard from now: after a leader change each gets a full TTL
   * (docs/semantics.md#time).
   */
  void heardAll() {
    for (Live session : live.values()) {
      session.heard();
    }
  }

  /** The machine was restored: track exactly its sessions, each with a full TTL from now. */
  void restored(List<Effect.SessionStarted> sessions) {
    for (Live old : live.values()) {
      forget(old);
    }
    live.clear();
    for (Effect.SessionStarted s : sessions) {
      started(s.sessionId(), s.ttl(), s.owner());
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
   * After proposing, it looks again soon ({@link #FIRST_RETRY_NANOS}, doubling up to a TTL): the
   * expiry ends the session, or the machine refused it as early, or the client spoke meanwhile.
   * Runs on the timer thread only.
   */
  private void check(Live session) {
    if (live.get(session.id) != session) {
      return;
    }
    long silent = clock.now() - session.lastHeard;
    if (silent < session.ttlNanos) {
      session.proposals = 0;
      watch(session, session.ttlNanos - silent);
      return;
    }
    Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> r = replicator;
    if (r != null) {
      try {
        r.submit(new Command.ExpireSession(session.id), null);
      } catch (IllegalStateException closing) {
        log.debug("not expiring session {}: the replicator is closed", session.id);
        return;
      }
    }
    int shift = Math.min(session.proposals++, 40);
    watch(session, Math.min(FIRST_RETRY_NANOS << shift, session.ttlNanos));
  }
}
