package io.semafor.server;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.semafor.core.TimerKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The machine's timers on this process's monotonic clock: waiter timeouts and lease ends, each
 * firing into a callback that proposes the expiry, plus plain delayed tasks for session liveness. A
 * 1 ms wheel: a timer fires at most about a tick late, and the machine refuses any expiry that is
 * early in log time, so nothing ever expires early. Thread-safe.
 */
final class Timers implements AutoCloseable {
  private final HashedWheelTimer wheel =
      new HashedWheelTimer(
          new DefaultThreadFactory("semafor-timer", true), 1, TimeUnit.MILLISECONDS, 1024);
  private final ConcurrentHashMap<TimerKey, Timeout> armed = new ConcurrentHashMap<>();
  private final Consumer<TimerKey> fire;

  /** Timers that hand each key to {@code fire} when it is due. */
  Timers(Consumer<TimerKey> fire) {
    this.fire = fire;
  }

  /** Arms {@code key} to fire after {@code delayNanos}, replacing any earlier arming. */
  void arm(TimerKey key, long delayNanos) {
    Timeout timeout =
        wheel.newTimeout(
            t -> {
              if (armed.remove(key, t)) {
                fire.accept(key);
              }
            },
            Math.max(0, delayNanos),
            TimeUnit.NANOSECONDS);
    Timeout previous = armed.put(key, timeout);
    if (previous != null) {
      previous.cancel();
    }
  }

  void cancel(TimerKey key) {
    Timeout timeout = armed.remove(key);
    if (timeout != null) {
      timeout.cancel();
    }
  }

  /** Runs {@code task} once after {@code delayNanos}; returns a handle to cancel it. */
  Timeout schedule(Runnable task, long delayNanos) {
    return wheel.newTimeout(t -> task.run(), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  int armedCount() {
    return armed.size();
  }

  @Override
  public void close() {
    wheel.stop();
    armed.clear();
  }
}
