package io.semafor.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.semafor.core.Query;
import io.semafor.replication.Replicator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * How fast one connection's watch events may go, and when its watches that were left behind (its
 * client read too slowly, or a large start paused at its turn's share) are caught up: once what is
 * queued for it has mostly been written. Reads the channel's own state (writability, bytes unsent),
 * so it lives with the driver, not the session machine. Thread-safe.
 */
final class WatchPacing {
  private final Connection connection;
  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final long turnBytes;
  private final BooleanSupplier watching;

  /** A catch-up is on its way to the applying thread. */
  private final AtomicBoolean asked = new AtomicBoolean();

  /** A look for when to catch up is scheduled (one chain per connection). */
  private final AtomicBoolean polling = new AtomicBoolean();

  /**
   * The pacing of {@code connection}'s watches, caught up through {@code replicator}, which may
   * have a quarter of the unread cap of {@code limits} unsent at once (at most {@link
   * EdgeWatches#BYTES_PER_BATCH}, so that a large start never reaches the cap); {@code watching}
   * says whether any runs.
   */
  WatchPacing(
      Connection connection,
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      ClientLimits limits,
      BooleanSupplier watching) {
    this.connection = connection;
    this.replicator = replicator;
    this.turnBytes = Math.min(EdgeWatches.BYTES_PER_BATCH, limits.maxUnreadBytes() / 4);
    this.watching = watching;
  }

  /** What the connection's watches may have unsent at once before they are left behind. */
  long turnBytes() {
    return turnBytes;
  }

  /** Bytes written to the connection and not yet sent. Any thread. */
  long unsentBytes() {
    Channel c = connection.channel();
    ChannelOutboundBuffer queued = c == null ? null : c.unsafe().outboundBuffer();
    return queued == null ? 0 : queued.totalPendingWriteBytes();
  }

  /** Whether watch events may be queued for the connection now: open, and its client reads. */
  boolean takesEvents() {
    Channel c = connection.channel();
    return c != null && c.isActive() && c.isWritable();
  }

  /**
   * Asks for the connection's watches left behind to be caught up, unless that is asked already.
   */
  void askCatchUp() {
    if (!watching.getAsBoolean() || !asked.compareAndSet(false, true)) {
      return;
    }
    try {
      replicator.read(new Query.Barrier(), new EdgeWatches.CatchUp(connection));
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
  void soon() {
    Channel c = connection.channel();
    if (c != null && polling.compareAndSet(false, true)) {
      c.eventLoop().execute(() -> whenDrained(c, 10));
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a one-shot look: nothing to cancel
  private void whenDrained(Channel c, long delayMillis) {
    if (!c.isActive() || !c.isWritable() || !watching.getAsBoolean()) {
      polling.set(false); // closed, unwatched, or its writability change asks
      return;
    }
    if (unsentBytes() < turnBytes) {
      polling.set(false);
      askCatchUp();
    } else {
      long next = Math.min(1_000, delayMillis * 2);
      c.eventLoop().schedule(() -> whenDrained(c, next), delayMillis, TimeUnit.MILLISECONDS);
    }
  }
}
