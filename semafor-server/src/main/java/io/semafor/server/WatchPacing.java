package io.semafor.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.semafor.core.Query;
import io.semafor.replication.Replicator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * When one connection's watches that were left behind (its client read too slowly, or a large start
 * paused at its turn's share) are caught up: once what is queued for it has mostly been written.
 * Reads the channel's own state (writability, bytes unsent), so it lives with the driver, not the
 * session machine. Thread-safe.
 */
final class WatchPacing {
  private final Connection connection;
  private final long turnBytes;
  private final BooleanSupplier watching;

  /** A catch-up is on its way to the applying thread. */
  private final AtomicBoolean asked = new AtomicBoolean();

  /** A look for when to catch up is scheduled (one chain per connection). */
  private final AtomicBoolean polling = new AtomicBoolean();

  /**
   * The pacing of {@code connection}'s watches, which may have {@code turnBytes} unsent at once;
   * {@code watching} says whether any runs.
   */
  WatchPacing(Connection connection, long turnBytes, BooleanSupplier watching) {
    this.connection = connection;
    this.turnBytes = turnBytes;
    this.watching = watching;
  }

  /**
   * What a connection's watches may have unsent at once before they are left behind, to go on once
   * it is written: a quarter of the unread cap (so that a large start never reaches it), at most
   * {@link Edge#WATCH_BYTES_PER_BATCH}.
   */
  static long turnBytes(ClientLimits limits) {
    return Math.min(Edge.WATCH_BYTES_PER_BATCH, limits.maxUnreadBytes() / 4);
  }

  long turnBytes() {
    return turnBytes;
  }

  /** Bytes written to {@code c} and not yet sent. Any thread. */
  static long unsentBytes(Channel c) {
    ChannelOutboundBuffer queued = c.unsafe().outboundBuffer();
    return queued == null ? 0 : queued.totalPendingWriteBytes();
  }

  /** Whether watch events may be queued for {@code c} now: open, and its client reads. */
  static boolean takesEvents(Channel c) {
    return c.isActive() && c.isWritable();
  }

  /**
   * Asks for the connection's watches left behind to be caught up, unless that is asked already.
   */
  void askCatchUp(Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator) {
    if (!watching.getAsBoolean() || !asked.compareAndSet(false, true)) {
      return;
    }
    try {
      replicator.read(new Query.Barrier(), new Edge.WatchCatchUp(connection));
    } catch (Replicator.ReplicatorClosedException e) {
      // shutting down: nothing to catch up
    }
  }

  /** The catch-up asked for has been made: the next drain may ask for another. */
  void caughtUp() {
    asked.set(false);
  }

  /**
   * Asks for the rest once what is queued now has mostly been written. While the channel is
   * writable that is looked at every 10 ms, then less often (a client reading slowly keeps the
   * unsent bytes up without ever making the channel unwritable when the unread cap is below the
   * high water mark); once it is not, its becoming writable asks. Any thread.
   */
  void soon(Channel c, Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator) {
    if (polling.compareAndSet(false, true)) {
      c.eventLoop().execute(() -> whenDrained(c, replicator, 10));
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a one-shot look: nothing to cancel
  private void whenDrained(
      Channel c,
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      long delayMillis) {
    if (!c.isActive() || !c.isWritable() || !watching.getAsBoolean()) {
      polling.set(false); // closed, unwatched, or its writability change asks
      return;
    }
    if (unsentBytes(c) < turnBytes) {
      polling.set(false);
      askCatchUp(replicator);
    } else {
      long next = Math.min(1_000, delayMillis * 2);
      c.eventLoop()
          .schedule(() -> whenDrained(c, replicator, next), delayMillis, TimeUnit.MILLISECONDS);
    }
  }
}
