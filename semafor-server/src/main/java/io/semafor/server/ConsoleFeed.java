package io.semafor.server;

import io.semafor.core.Name;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Tells the console's live streams that a semaphore they show has changed, so that they read it
 * again (decision 0042). The applying thread calls {@link #changed} after every command that
 * changed something; with no stream open that costs one look at an empty list. A stream only learns
 * <em>that</em> something it shows changed, never what: it reads the state afresh, so several
 * changes between two reads are shown once, as the latest state (the watch protocol, not the
 * console, is where every change is told). Thread-safe.
 */
final class ConsoleFeed {
  /** A stream's interest: the semaphores under a prefix, and one semaphore by name. */
  interface Listener {
    /** Whether a change of {@code name} changes what the stream shows. */
    boolean shows(Name name);

    /** Something it shows changed; must return at once (called on the applying thread). */
    void poke();
  }

  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  void add(Listener listener) {
    listeners.add(listener);
  }

  void remove(Listener listener) {
    listeners.remove(listener);
  }

  /** The command at some revision changed {@code names}. Applying thread. */
  void changed(List<Name> names) {
    if (listeners.isEmpty()) {
      return;
    }
    for (Listener listener : listeners) {
      for (Name name : names) {
        if (listener.shows(name)) {
          listener.poke();
          break;
        }
      }
    }
  }
}
