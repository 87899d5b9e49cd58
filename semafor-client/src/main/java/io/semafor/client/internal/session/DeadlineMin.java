package io.semafor.client.internal.session;

import java.util.OptionalLong;

/** The earliest of some monotonic times (compared by difference, as nanoTime must be). */
final class DeadlineMin {
  private boolean any;
  private long min;

  void add(long t) {
    if (!any || t - min < 0) {
      min = t;
      any = true;
    }
  }

  OptionalLong result() {
    return any ? OptionalLong.of(min) : OptionalLong.empty();
  }
}
