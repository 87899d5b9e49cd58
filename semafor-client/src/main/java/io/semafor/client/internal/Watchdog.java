package io.semafor.client.internal;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs an action after a delay unless cancelled first: the bound on connecting and handshaking,
 * which cannot use socket timeouts (see {@link Wire}). One daemon thread for the whole process,
 * started on first use and gone after a second of idleness. Thread-safe.
 */
final class Watchdog {
  private static final ScheduledThreadPoolExecutor EXECUTOR = executor();

  private Watchdog() {}

  private static ScheduledThreadPoolExecutor executor() {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "semafor-client-watchdog");
              t.setDaemon(true);
              return t;
            });
    e.setKeepAliveTime(1, TimeUnit.SECONDS);
    e.allowCoreThreadTimeOut(true);
    e.setRemoveOnCancelPolicy(true);
    return e;
  }

  /** Runs {@code action} after {@code delay}; cancel the returned future to stop it. */
  static ScheduledFuture<?> after(Duration delay, Runnable action) {
    return EXECUTOR.schedule(action, delay.toNanos(), TimeUnit.NANOSECONDS);
  }
}
