package io.semafor.server;

import io.semafor.core.TimerKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The machine's timers on this process's monotonic clock: waiter timeouts and lease ends, each
 * firing into a callback that proposes the expiry, plus plain delayed tasks for session liveness.
 *
 * <p>One thread sleeps until the earliest deadline rather than ticking a wheel: on a small or
 * virtualised machine every wake-up costs, and a 1 ms wheel wakes a thousand times a second while
 * nothing is due (see docs/decisions/0013-timers-sleep-until-due.md). A timer fires at or after its
 * deadline, never before; the machine also refuses an expiry that is early in log time.
 * Thread-safe.
 */
final class Timers implements AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;
  private final ConcurrentHashMap<TimerKey, FiringTask> armed = new ConcurrentHashMap<>();
  private final Consumer<TimerKey> fire;

  /** Timers that hand each key to {@code fire} when it is due. */
  Timers(Consumer<TimerKey> fire) {
    this.fire = fire;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "semafor-timer");
              t.setDaemon(true);
              return t;
            });
    // a cancelled waiter timeout must not stay in the queue until its deadline: with a million
    // waiters that come and go, the queue would hold a million dead entries
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Arms {@code key} to fire after {@code delayNanos}, replacing any earlier arming. */
  void arm(TimerKey key, long delayNanos) {
    FiringTask task = new FiringTask(key);
    FiringTask previous = armed.put(key, task);
    if (previous != null) {
      previous.cancel();
    }
    task.future = executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  void cancel(TimerKey key) {
    FiringTask task = armed.remove(key);
    if (task != null) {
      task.cancel();
    }
  }

  /** Runs {@code task} once after {@code delayNanos}; returns a handle to cancel it. */
  Future<?> schedule(Runnable task, long delayNanos) {
    return executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  /**
   * Runs {@code task} every {@code periodNanos}, counted from the end of each run: after a pause it
   * runs once, not once per period missed. Until {@link #close}.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // ends with the executor
  void every(Runnable task, long periodNanos) {
    executor.scheduleWithFixedDelay(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
  }

  int armedCount() {
    return armed.size();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    armed.clear();
  }

  /**
   * Fires its key if it is still the one armed for it: a task cancelled or replaced before its
   * future was stored finds itself gone from {@link #armed} and does nothing.
   */
  private final class FiringTask implements Runnable {
    private final TimerKey key;
    private volatile @Nullable ScheduledFuture<?> future;

    FiringTask(TimerKey key) {
      this.key = key;
    }

    void cancel() {
      ScheduledFuture<?> f = future;
      if (f != null) {
        f.cancel(false);
      }
    }

    @Override
    public void run() {
      if (armed.remove(key, this)) {
        fire.accept(key);
      }
    }
  }
}
