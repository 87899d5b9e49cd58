package io.semafor.server;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * One connection's flush of watch events, deferred: to the end of its event loop's turn, and no
 * sooner than {@link #SPACING_NANOS} after the last one. The loop first runs what is queued before
 * it — the deliveries of later batches among them — so a watcher of a busy semaphore gets the
 * events of many batches in one write instead of one write, one syscall and one wake-up of its
 * reader per batch (issue 33; docs/benchmarks.md, "Watches"); a watcher of a quiet one gets each
 * event at the end of the turn that wrote it. Answers are not deferred: their flush goes out at
 * once and takes any watch events with it.
 *
 * <p>Only on the channel's event loop; not thread-safe otherwise.
 */
final class DeferredFlush {
  /**
   * The least time between two deferred flushes of one connection: a watcher is told about a
   * millisecond late at most (the epoll transport's timers are that precise; NIO's round up to the
   * next millisecond), and a busy semaphore's events reach it in one write per millisecond rather
   * than one per batch.
   */
  static final long SPACING_NANOS = 1_000_000;

  /** Runs a task after a delay in nanoseconds. */
  interface Later {
    void run(Runnable task, long delayNanos);
  }

  private boolean queued;
  private boolean flushed;
  private long lastFlushNanos;

  /** Flushes {@code channel} at the end of its loop's turn, or later to keep the spacing. */
  @SuppressWarnings("FutureReturnValueIgnored") // the flush cannot fail; nothing to cancel
  void soon(Channel channel) {
    EventLoop loop = channel.eventLoop();
    soon(
        loop,
        (task, delay) -> loop.schedule(task, delay, NANOSECONDS),
        channel::flush,
        System::nanoTime);
  }

  /**
   * Runs {@code flush} on {@code loop} after what is queued there now, or through {@code later}
   * once {@link #SPACING_NANOS} have passed since the last flush it ran ({@code clock} tells the
   * time); nothing if one is queued already.
   */
  void soon(Executor loop, Later later, Runnable flush, LongSupplier clock) {
    if (queued) {
      return;
    }
    queued = true;
    Runnable task =
        () -> {
          queued = false;
          flushed = true;
          lastFlushNanos = clock.getAsLong();
          flush.run();
        };
    long wait = flushed ? lastFlushNanos + SPACING_NANOS - clock.getAsLong() : 0;
    if (wait <= 0) {
      loop.execute(task);
    } else {
      later.run(task, wait);
    }
  }
}
