package io.semafor.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.semafor.protocol.v1.ServerFrame;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The frames one batch of applied commands produced, written when the batch ends. Frames for
 * connections served by the applying thread's own event loop are written in place and flushed once
 * per connection; those for each other event loop travel there in one task, not one per frame.
 *
 * <p>Why: the thread applying a batch answers other loops' clients too, and a write from outside a
 * channel's loop costs a task and often a wake-up of that loop; batching them was a measured share
 * of the server's time under load (docs/decisions/0012-reply-batching.md).
 *
 * <p>Used only by the applying thread (the replicator serialises it); not thread-safe.
 */
final class Outbox {
  /** What the outbox needs of a connection it writes to ({@link Connection}). */
  interface Recipient {
    /** The channel, once active; null before. */
    @Nullable Channel channel();

    /** Its deferred flush of watch events; used on its channel's loop only. */
    DeferredFlush watchFlush();

    /** A read's answer to it is in its channel's buffer: the read's slot is free. Any thread. */
    void readAnswered();
  }

  private final List<Channel> channels = new ArrayList<>();

  /** What goes to each of {@link #channels}, in the order queued. */
  private final List<Outgoing> frames = new ArrayList<>();

  /**
   * Each connection's watch events still being added to: closed by anything else queued for the
   * connection (so that its frames leave in the order they were queued), and by the flush.
   */
  private final IdentityHashMap<Recipient, WatchBytes> openWatchBytes = new IdentityHashMap<>();

  /** Which of the queue's frames the flush under way handed to a channel or to a loop's task. */
  private final BitSet handed = new BitSet();

  /** Something queued for a channel. */
  private sealed interface Outgoing {}

  /** A frame, flushed at once. */
  private record Frame(ServerFrame frame) implements Outgoing {}

  /** A read's answer and the connection whose read it answers. */
  private record ReadAnswer(Recipient connection, ServerFrame frame) implements Outgoing {}

  /** Watch events and the connection whose deferred flush sends them. */
  private record WatchEvents(Recipient connection, WatchBytes bytes) implements Outgoing {}

  /** Queues {@code frame} for {@code connection}; dropped at flush if the connection is gone. */
  void add(Recipient connection, ServerFrame frame) {
    Channel channel = connection.channel();
    if (channel != null) {
      queue(connection, channel, new Frame(frame));
    }
  }

  /**
   * Queues the answer to a read of {@code connection}, whose slot among the reads in flight is
   * freed once the answer is written to the channel ({@link Connection#readAnswered}): until then
   * the answer is counted by nothing else (not the channel's unread bytes, not its writability).
   */
  void addReadAnswer(Recipient connection, ServerFrame frame) {
    Channel channel = connection.channel();
    if (channel != null) {
      queue(connection, channel, new ReadAnswer(connection, frame));
    } else {
      connection.readAnswered();
    }
  }

  /**
   * Where to add watch events for {@code connection}, or null if it has no channel: the buffer its
   * events of this batch go into since anything else was queued for it. Written with the batch, but
   * flushed later ({@link DeferredFlush}) unless an answer to the same connection flushes it first.
   */
  @Nullable WatchBytes watchBytes(Recipient connection) {
    WatchBytes open = openWatchBytes.get(connection);
    if (open != null) {
      return open;
    }
    Channel channel = connection.channel();
    if (channel == null) {
      return null;
    }
    WatchBytes bytes = new WatchBytes(channel.alloc());
    channels.add(channel);
    frames.add(new WatchEvents(connection, bytes));
    openWatchBytes.put(connection, bytes);
    return bytes;
  }

  private void queue(Recipient connection, Channel channel, Outgoing frame) {
    if (!openWatchBytes.isEmpty()) {
      openWatchBytes.remove(connection);
    }
    channels.add(channel);
    frames.add(frame);
  }

  /** Writes everything queued since the last flush. */
  void flush() {
    flush(null);
  }

  /**
   * Writes everything queued since the last flush, then runs {@code afterWritten} (if not null)
   * once every event loop that was handed frames has written them: a task queued on each such loop
   * after its frames, the last of them to run calling it. So whoever produces frames faster than
   * the loops write them (a grant storm's slices) can wait for them instead of piling up tasks in
   * front of other clients' answers.
   */
  void flush(@Nullable Runnable afterWritten) {
    int n = channels.size();
    if (n == 0) {
      if (afterWritten != null) {
        afterWritten.run();
      }
      return;
    }
    openWatchBytes.clear();
    IdentityHashMap<EventLoop, Delivery> elsewhere = null;
    handed.clear();
    boolean done = false;
    try {
      boolean wroteHere = false;
      for (int i = 0; i < n; i++) {
        Channel channel = channels.get(i);
        EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop()) {
          handed.set(i);
          write(channel, frames.get(i));
          wroteHere = true;
        } else {
          if (elsewhere == null) {
            elsewhere = new IdentityHashMap<>();
          }
          elsewhere.computeIfAbsent(loop, l -> new Delivery()).add(channel, frames.get(i), i);
        }
      }
      if (wroteHere) {
        for (int i = 0; i < n; i++) {
          Channel channel = channels.get(i);
          if (channel.eventLoop().inEventLoop()) {
            flush(channel, frames.get(i)); // nothing to do for a channel already flushed
          }
        }
      }
      if (elsewhere != null) {
        for (Map.Entry<EventLoop, Delivery> e : elsewhere.entrySet()) {
          e.getKey().execute(e.getValue());
          e.getValue().indices.forEach(handed::set);
        }
      }
      done = true;
    } finally {
      if (!done) {
        // a flush that failed half-way (a loop shutting down refuses its task): the watch events
        // nobody was handed are released here, and nothing is written again by the next flush
        for (int i = 0; i < n; i++) {
          if (!handed.get(i) && frames.get(i) instanceof WatchEvents w) {
            w.bytes().buffer().release();
          }
        }
      }
      channels.clear();
      frames.clear();
    }
    if (afterWritten == null) {
      return;
    }
    if (elsewhere == null) {
      afterWritten.run();
      return;
    }
    AtomicInteger loopsLeft = new AtomicInteger(elsewhere.size());
    for (EventLoop loop : elsewhere.keySet()) {
      loop.execute(
          () -> {
            if (loopsLeft.decrementAndGet() == 0) {
              afterWritten.run();
            }
          });
    }
  }

  /** Flushes {@code channel} after writing {@code frame}: now, or soon if only watch events. */
  private static void flush(Channel channel, Outgoing frame) {
    if (frame instanceof WatchEvents watch) {
      watch.connection().watchFlush().soon(channel);
    } else {
      channel.flush();
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a void promise: failures close the channel
  private static void write(Channel channel, Outgoing frame) {
    if (frame instanceof WatchEvents watch) {
      ByteBuf bytes = watch.bytes().buffer();
      if (channel.isActive() && bytes.isReadable()) {
        channel.write(bytes, channel.voidPromise()); // released by the channel once written
      } else {
        bytes.release();
      }
      return;
    }
    ServerFrame written =
        frame instanceof ReadAnswer answer ? answer.frame() : ((Frame) frame).frame();
    if (channel.isActive()) {
      channel.write(written, channel.voidPromise());
    }
    if (frame instanceof ReadAnswer answer) {
      // on the channel's loop, after the write: the answer's bytes are in the channel's buffer,
      // counted by its writability and its unread cap, before another read is let in
      answer.connection().readAnswered();
    }
  }

  /** The frames bound for one other event loop, written and flushed there in one go. */
  private static final class Delivery implements Runnable {
    private final List<Channel> channels = new ArrayList<>();
    private final List<Outgoing> frames = new ArrayList<>();

    /** Where each frame stands in the outbox's queue. */
    private final List<Integer> indices = new ArrayList<>();

    void add(Channel channel, Outgoing frame, int index) {
      channels.add(channel);
      frames.add(frame);
      indices.add(index);
    }

    @Override
    public void run() {
      for (int i = 0; i < channels.size(); i++) {
        write(channels.get(i), frames.get(i));
      }
      for (int i = 0; i < channels.size(); i++) {
        flush(channels.get(i), frames.get(i));
      }
    }
  }
}
