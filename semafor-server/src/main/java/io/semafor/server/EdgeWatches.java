package io.semafor.server;

import io.semafor.ErrorCode;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.SemaphoreMachine;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import io.semafor.server.session.WatchRequest;
import io.semafor.server.watch.StateReader;
import io.semafor.server.watch.WatchEvent;
import io.semafor.server.watch.WatchHub;
import io.semafor.server.wire.ChangedFrame;
import io.semafor.server.wire.WireResults;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * The watches of this node's connections, as the applying thread feeds them (decision 0041): each
 * applied change goes to the watches of the names it touched, each state encoded once for every
 * watcher and queued in the {@link Outbox} with the batch's answers; a connection that does not
 * keep up is left behind and caught up once it has written what it was given. Its monitor guards
 * it: starts, changes and catch-ups come on the applying thread, unwatches and closes on the
 * connections' loops.
 */
final class EdgeWatches {
  /** How many changed names the watches remember for catching a watcher up (a few MiB at most). */
  static final int WATCH_RING = 65_536;

  /** The watches; its monitor guards it, {@link #sinks}, {@link #state} and the rest. */
  private final WatchHub watches = new WatchHub(WATCH_RING, 0);

  /** Where events are queued until the batch ends. */
  private final Outbox outbox;

  /** Connections whose watches were left behind in the batch under way. Applying thread. */
  private final Set<Connection> refusedThisBatch = new HashSet<>();

  /** Watches of connections whose events go into {@code outbox}. */
  EdgeWatches(Outbox outbox) {
    this.outbox = outbox;
  }

  /** Where each connection's watch events go. */
  private final Map<Connection, WatchSink> sinks = new HashMap<>();

  /** The machine the replicator applies to, read only on the applying thread. */
  private StateReader state = StateReader.of(new SemaphoreMachine(io.semafor.core.Limits.DEFAULT));

  /** The log time of the callback being handled: what times in a watched state count from. */
  private long logTime;

  /**
   * The frame of each state the hub handed out during the call being handled, by identity (its name
   * and its bytes, encoded once): the hub renders a changed state once for every watch of the same
   * shape. Cleared after each call.
   */
  private final IdentityHashMap<io.semafor.core.Result, ChangedFrame> encodedStates =
      new IdentityHashMap<>();

  /**
   * The state is {@code machine}'s now (the start, or a restore): every watch is resynced when next
   * caught up.
   */
  void restored(SemaphoreMachine machine) {
    synchronized (watches) {
      state = StateReader.of(machine);
      watches.restored(machine.revision());
    }
  }

  /** A command changed {@code changed} at {@code revision}: their watchers are told. */
  void applied(long revision, List<Name> changed, long logTime) {
    synchronized (watches) {
      this.logTime = logTime;
      try {
        watches.applied(revision, changed, state);
      } catch (RuntimeException e) {
        // a bug in the watches must not stop the machine's commands from being answered
        LoggerFactory.getLogger(EdgeWatches.class)
            .error("watches failed at revision {}: resyncing them", revision, e);
        watches.restored(revision);
      } finally {
        encodedStates.clear();
      }
    }
  }

  /** Every watch that keeps up is told it is synced. */
  void heartbeat(long logTime) {
    synchronized (watches) {
      this.logTime = logTime;
      watches.heartbeat(state);
    }
  }

  /** The batch ended: connections left behind in it catch up once their frames are written. */
  void batchEnded() {
    batches++;
    if (!refusedThisBatch.isEmpty()) {
      for (Connection c : refusedThisBatch) {
        c.pacing().soon(); // runs on its loop after this batch's frames are written
      }
      refusedThisBatch.clear();
    }
  }

  /**
   * A watch asked for on a connection: read through the replicator, so that it starts at a point of
   * the apply order, with nothing applied between what it is first told and its first live event.
   * An id unwatched and watched again is another start ({@link WatchRequest#start()}).
   */
  static final class Start implements ReadOrigin {
    private final Connection connection;
    private final WatchRequest request;

    Start(Connection connection, WatchRequest request) {
      this.connection = connection;
      this.request = request;
    }

    Connection connection() {
      return connection;
    }

    WatchRequest request() {
      return request;
    }

    @Override
    public void refused(String leaderHint) {
      connection.readRefused(leaderHint);
    }

    @Override
    public void answered(Query query, Reply reply, long logTime, ReadOrigin.Answers to) {
      connection.readAnswered();
      to.startWatch(this, logTime);
    }
  }

  /** A connection that can take events again: its watches left behind are caught up. */
  record CatchUp(Connection connection) implements ReadOrigin {
    @Override
    public void refused(String leaderHint) {
      connection.pacing().caughtUp();
      connection.notLeader(leaderHint);
    }

    @Override
    public void answered(Query query, Reply reply, long logTime, ReadOrigin.Answers to) {
      to.catchUp(connection, logTime);
    }
  }

  /** Time for every watch that keeps up to be told it is synced (proof of life, decision 0041). */
  record Heartbeat() implements ReadOrigin {
    @Override
    public void refused(String leaderHint) {} // the leader's heartbeat is the one that counts

    @Override
    public void answered(Query query, Reply reply, long logTime, ReadOrigin.Answers to) {
      to.heartbeat(logTime);
    }
  }

  /** How often watches are told they are synced when nothing else is said. */
  static final Duration HEARTBEAT = Duration.ofSeconds(30);

  /**
   * Batches ended so far: a watch sink counts what it queued in the current one. Applying thread.
   */
  private long batches;

  /**
   * The most bytes of watch events one connection is given in one batch before its watches are left
   * behind, to go on once the connection has written them: more than the channel's high water mark
   * (so that writing them makes it unwritable, and its draining asks for the rest), well under the
   * unread cap (8 MiB by default), which a start of 100,000 states sent at once passed.
   */
  static final long BYTES_PER_BATCH = 2L << 20;

  /** Events of one connection's watches: framed into the outbox, written when the batch ends. */
  private final class WatchSink implements WatchHub.Subscriber {
    private final Connection connection;
    private final Map<Long, WatchHub.Watch> byId = new HashMap<>();
    private long batch = -1;
    private long queued;

    WatchSink(Connection connection) {
      this.connection = connection;
    }

    private long queuedThisBatch() {
      if (batch != batches) {
        batch = batches;
        queued = 0;
      }
      return queued;
    }

    @Override
    public boolean keepingUp() {
      boolean takes =
          connection.pacing().takesEvents()
              && queuedThisBatch() + connection.pacing().unsentBytes()
                  < connection.pacing().turnBytes();
      if (!takes) {
        // left behind while its channel may stay writable (the turn is below the high water
        // mark): no writability change would ask for the catch-up, so the batch's end does
        refusedThisBatch.add(connection);
      }
      return takes;
    }

    @Override
    public void deliver(WatchEvent event) {
      queuedThisBatch();
      WatchBytes to = outbox.watchBytes(connection);
      if (to == null) {
        return; // closed: its watches end with it
      }
      if (event instanceof WatchEvent.Changed c) {
        // every watch told this state gets the same bytes: encoded once, copied per frame
        ChangedFrame frame =
            encodedStates.computeIfAbsent(
                c.state(), s -> ChangedFrame.of(c.name(), s, WireResults.watchedState(s, logTime)));
        queued += to.append(frame, c.id(), c.revision());
        return;
      }
      queued +=
          to.append(
              ServerFrame.newBuilder()
                  .setWatchEvent(WireResults.watchEvent(event, logTime))
                  .build());
    }

    /** Whether any of its watches was left behind (then a catch-up is asked for). */
    boolean anyBehind() {
      for (WatchHub.Watch w : byId.values()) {
        if (watches.isBehind(w)) {
          return true;
        }
      }
      return false;
    }
  }

  /** A watch starts at its place in the apply order, unless it was unwatched meanwhile. */
  void start(Start s, long logTime) {
    synchronized (watches) {
      if (!s.connection().watching(s)) {
        return; // unwatched, or the connection closed, while the start was on its way
      }
      this.logTime = logTime;
      WatchSink sink = sinks.computeIfAbsent(s.connection(), WatchSink::new);
      WatchRequest r = s.request();
      WatchHub.Watch w =
          new WatchHub.Watch(sink, r.id(), r.name(), r.prefix(), r.limit(), r.summary());
      sink.byId.put(r.id(), w);
      watches.start(w, r.afterRevision(), state);
      encodedStates.clear();
      if (watches.isBehind(w)) {
        s.connection().pacing().soon(); // the rest once what was queued is written
      }
    }
  }

  /** {@code connection}'s watches left behind catch up from here. */
  void catchUp(Connection connection, long logTime) {
    connection.pacing().caughtUp();
    synchronized (watches) {
      WatchSink sink = sinks.get(connection);
      if (sink == null) {
        return;
      }
      this.logTime = logTime;
      for (WatchHub.Watch w : sink.byId.values()) {
        watches.catchUp(w, state);
      }
      encodedStates.clear();
      if (sink.anyBehind()) {
        connection.pacing().soon();
      }
    }
  }

  /** Ends the watch {@code id} of {@code connection}. Any thread. */
  void unwatch(Connection connection, long id) {
    synchronized (watches) {
      WatchSink sink = sinks.get(connection);
      WatchHub.Watch w = sink == null ? null : sink.byId.remove(id);
      if (w != null) {
        watches.stop(w);
      }
    }
  }

  /**
   * Ends, with a {@code FAILED} event PERMISSION_DENIED queued after whatever it was sent before,
   * every watch whose principal may no longer read what it watches under {@code access} (decision
   * 0047). Applying thread. Returns how many ended.
   */
  int endDenied(Access access) {
    if (!access.enforced()) {
      return 0;
    }
    int ended = 0;
    synchronized (watches) {
      for (WatchSink sink : sinks.values()) {
        Principal who = sink.connection.principal();
        var it = sink.byId.values().iterator();
        while (it.hasNext()) {
          WatchHub.Watch w = it.next();
          String denied =
              who == null
                  ? "a connection begins with Hello and its credentials"
                  : Authorizer.deny(access, who, new Query.Get(w.name()));
          if (denied == null) {
            continue;
          }
          it.remove();
          watches.stop(w);
          sink.connection.watchEnded(w.id());
          outbox.add(
              sink.connection,
              ServerFrame.newBuilder()
                  .setWatchEvent(
                      WireResults.watchFailed(
                          w.id(),
                          ErrorCode.PERMISSION_DENIED,
                          denied + " (the rules changed; the watch ended)"))
                  .build());
          ended++;
        }
      }
    }
    return ended;
  }

  /** Ends every watch of a connection that closed. Any thread. */
  void connectionClosed(Connection connection) {
    synchronized (watches) {
      WatchSink sink = sinks.remove(connection);
      if (sink != null) {
        watches.stopAll(sink);
      }
    }
  }

  /** How many watches are running, for the metrics. */
  int count() {
    synchronized (watches) {
      return watches.watches();
    }
  }
}
