package io.semafor.server;

import io.netty.channel.Channel;
import java.util.concurrent.Executor;

/**
 * One connection's flush of watch events, deferred to the end of its event loop's turn: the loop
 * first runs what is queued before it — the deliveries of later batches among them — so a watcher
 * of a busy semaphore gets the events of many batches in one write instead of one write, one
 * syscall and one wake-up of its reader per batch (issue 33; docs/benchmarks.md, "Watches").
 * Answers are not deferred: their flush goes out at once and takes any watch events with it.
 *
 * <p>Only on the channel's event loop; not thread-safe otherwise.
 */
final class DeferredFlush {
  private boolean queued;

  /** Flushes {@code channel} once the tasks queued on its loop before now have run. */
  void soon(Channel channel) {
    soon(channel.eventLoop(), channel::flush);
  }

  /** Runs {@code flush} on {@code loop} after what is queued there now, unless queued already. */
  void soon(Executor loop, Runnable flush) {
    if (queued) {
      return;
    }
    queued = true;
    loop.execute(
        () -> {
          queued = false;
          flush.run();
        });
  }
}
