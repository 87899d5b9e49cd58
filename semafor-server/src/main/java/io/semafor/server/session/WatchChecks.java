package io.semafor.server.session;

import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.protocol.v1.Watch;
import org.jspecify.annotations.Nullable;

/** What makes a {@code Watch} frame invalid, named by its argument. Stateless. */
final class WatchChecks {
  private WatchChecks() {}

  /**
   * Why {@code w} (naming {@code name}) is invalid, or null if it is not; {@code running} says
   * whether a watch with its id runs on the connection already.
   */
  static @Nullable String invalid(Watch w, Name name, int maxNameBytes, boolean running) {
    long id = w.getId();
    if (id == 0) {
      return "id: must not be 0";
    }
    if (running) {
      return "id: watch " + id + " is already running on this connection";
    }
    if (w.getLimit() < 0 || w.getLimit() > Query.Inspect.MAX_LIMIT) {
      return "limit: must be within 0.." + Query.Inspect.MAX_LIMIT + ", was " + w.getLimit();
    }
    if (name.length() > maxNameBytes) {
      return "name: "
          + name.length()
          + " bytes, more than the "
          + maxNameBytes
          + " a name may have";
    }
    if (!w.getPrefix() && name.length() == 0) {
      return "name: empty (watch every name with prefix and an empty name)";
    }
    return null;
  }
}
