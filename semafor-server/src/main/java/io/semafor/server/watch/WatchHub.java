package io.semafor.server.watch;

import io.semafor.core.Name;
import io.semafor.core.Result;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A node's watches (decision 0041): tells each subscriber every change of the semaphores it
 * watches, live while it keeps up, and catches it up after a gap — a start, a resume after a
 * reconnect or a leader change, or an overflow — with each changed semaphore's latest state, or
 * with every matching state when the gap reaches past what the node remembers ({@link ChangeRing}).
 *
 * <p>Not thread-safe: every method runs on the applying thread, between commands, so that what a
 * catch-up reads and what the next live event says follow each other with nothing in between.
 */
public final class WatchHub {
  /** Where a watch's events go: one client connection. */
  public interface Subscriber {
    /**
     * Whether it can take more events now. One that cannot is left behind, and caught up once it
     * asks again ({@link #catchUp}).
     */
    boolean keepingUp();

    /** Takes an event; it is written out when the current batch ends. */
    void deliver(WatchEvent event);
  }

  /**
   * One watch of a subscriber.
   *
   * @param id the subscriber's id for it
   * @param name the semaphore, or the prefix if {@code prefix}
   * @param limit entries per list in each state
   * @param summary whether states are the status alone
   */
  public record Watch(
      Subscriber subscriber, long id, Name name, boolean prefix, int limit, boolean summary) {
    /** Whether it watches {@code candidate}. */
    public boolean matches(Name candidate) {
      return prefix ? candidate.startsWith(name) : candidate.equals(name);
    }
  }

  /** Names read per page while sending every state under a prefix. */
  static final int NAMES_PER_PAGE = 1_000;

  private final ChangeRing ring;
  private final Map<Name, List<Watch>> exact = new HashMap<>();
  private final List<Watch> prefixes = new ArrayList<>();

  /** Where each watch stands, by identity (each watch is one subscriber's, started once). */
  private final java.util.IdentityHashMap<Watch, Progress> progress =
      new java.util.IdentityHashMap<>();

  /** What a watch has been told. */
  private static final class Progress {
    /**
     * Every change up to this revision has been told (or was before the revision it resumed after:
     * a new leader may not have applied that far yet, and must not tell those changes again).
     */
    long told;

    /** Left behind: its subscriber could not take more; caught up when it asks. */
    boolean behind;

    /**
     * A listing of every matching state paused here, its subscriber having taken as much as it
     * could: the states up to this name were sent as of {@link #listedAt}; null when no listing is
     * under way.
     */
    @Nullable Name listedUpTo;

    /** The revision of the states a paused listing sent. */
    long listedAt;

    Progress(long told) {
      this.told = told;
    }
  }

  /**
   * A hub remembering the names changed by the last {@code ringCapacity} changes, from {@code
   * revision} on.
   */
  public WatchHub(int ringCapacity, long revision) {
    this.ring = new ChangeRing(ringCapacity, revision);
  }

  /** How many watches are live or behind. */
  public int watches() {
    int n = prefixes.size();
    for (List<Watch> l : exact.values()) {
      n += l.size();
    }
    return n;
  }

  /**
   * Starts {@code watch}: sends what it must know first, then {@link WatchEvent.Synced}, and from
   * then on every change. With {@code afterRevision} 0 that is every matching semaphore's state;
   * otherwise the latest state of each that changed after it, or, if the hub no longer knows, a
   * {@link WatchEvent.Resync} and every matching state.
   */
  public void start(Watch watch, long afterRevision, StateReader state) {
    register(watch);
    Progress p = new Progress(afterRevision);
    progress.put(watch, p);
    send(watch, p, afterRevision == 0, state);
  }

  /**
   * Catches up a watch that was left behind, as after a reconnect, once its subscriber can take
   * events again; nothing if it is not behind.
   */
  public void catchUp(Watch watch, StateReader state) {
    Progress p = progress.get(watch);
    if (p != null && p.behind) {
      p.behind = false;
      send(watch, p, false, state);
    }
  }

  /** Ends a watch. */
  public void stop(Watch watch) {
    progress.remove(watch);
    if (watch.prefix()) {
      prefixes.remove(watch);
      return;
    }
    List<Watch> list = exact.get(watch.name());
    if (list != null) {
      list.remove(watch);
      if (list.isEmpty()) {
        exact.remove(watch.name());
      }
    }
  }

  /** Ends every watch of {@code subscriber} (its connection closed); returns how many. */
  public int stopAll(Subscriber subscriber) {
    List<Watch> mine = new ArrayList<>();
    for (Watch w : prefixes) {
      if (w.subscriber() == subscriber) {
        mine.add(w);
      }
    }
    for (List<Watch> l : exact.values()) {
      for (Watch w : l) {
        if (w.subscriber() == subscriber) {
          mine.add(w);
        }
      }
    }
    mine.forEach(this::stop);
    return mine.size();
  }

  /**
   * The command at {@code revision} changed {@code changed}: remembers it, and tells every watch of
   * those names that keeps up their new state. A watch whose subscriber cannot take more is left
   * behind at the last revision it was told.
   */
  public void applied(long revision, List<Name> changed, StateReader state) {
    if (changed.isEmpty()) {
      return;
    }
    ring.record(revision, changed);
    if (exact.isEmpty() && prefixes.isEmpty()) {
      return;
    }
    Map<Shape, @Nullable Result> rendered = new HashMap<>();
    // whether each watch takes this command's events, asked once: a watch is told all of a
    // command's names or none, so a catch-up from the revision before it repeats nothing
    // by identity: a record's hash covers its name's bytes, computed again at every lookup
    Set<Watch> skipped = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    Set<Watch> taking = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Name name : changed) {
      for (Watch w : watching(name)) {
        Progress p = progress.get(w);
        if (p == null || p.behind || p.told >= revision || skipped.contains(w)) {
          // behind, or already told (a resume from a revision this node had not reached)
          skipped.add(w);
          continue;
        }
        if (!taking.contains(w)) {
          if (!w.subscriber().keepingUp()) {
            p.behind = true;
            skipped.add(w);
            continue;
          }
          taking.add(w);
        }
        Shape shape = new Shape(name, w.limit(), w.summary());
        if (!rendered.containsKey(shape)) {
          rendered.put(shape, state.state(name, w.limit(), w.summary()));
        }
        Result s = rendered.get(shape);
        w.subscriber()
            .deliver(
                s == null
                    ? new WatchEvent.Deleted(w.id(), revision, name)
                    : new WatchEvent.Changed(w.id(), revision, name, s));
      }
    }
    for (Name name : changed) {
      for (Watch w : watching(name)) {
        Progress p = progress.get(w);
        if (p != null && taking.contains(w)) {
          p.told = revision;
        }
      }
    }
  }

  /**
   * Tells every watch that keeps up that it has been told everything up to now ({@link
   * WatchEvent.Synced} at the last revision applied): proof of life on a quiet watch, so that a
   * client can tell a dead connection from a semaphore nobody changes, and a later resume starts
   * from here. A watch that cannot take it is left behind.
   */
  public void heartbeat(StateReader state) {
    long now = state.revision();
    for (var e : progress.entrySet()) {
      Watch w = e.getKey();
      Progress p = e.getValue();
      if (p.behind) {
        continue;
      }
      if (!w.subscriber().keepingUp()) {
        p.behind = true;
        continue;
      }
      p.told = Math.max(p.told, now);
      w.subscriber().deliver(new WatchEvent.Synced(w.id(), p.told));
    }
  }

  /**
   * The state was replaced wholesale at {@code revision} (a snapshot installed, a restart): what
   * changed before is no longer known, and every watch is caught up from scratch at its next turn.
   */
  public void restored(long revision) {
    ring.reset(revision);
    for (Progress p : progress.values()) {
      p.behind = true;
      p.listedUpTo = null; // a paused listing's states are of the replaced history: list afresh
    }
  }

  /** Whether {@code watch} is behind, waiting to be caught up. */
  public boolean isBehind(Watch watch) {
    Progress p = progress.get(watch);
    return p != null && p.behind;
  }

  private record Shape(Name name, int limit, boolean summary) {}

  private void register(Watch watch) {
    if (watch.prefix()) {
      prefixes.add(watch);
    } else {
      exact.computeIfAbsent(watch.name(), n -> new ArrayList<>(2)).add(watch);
    }
  }

  private List<Watch> watching(Name name) {
    List<Watch> list = exact.get(name);
    if (prefixes.isEmpty()) {
      return list == null ? List.of() : list;
    }
    List<Watch> out = new ArrayList<>(list == null ? List.of() : list);
    for (Watch w : prefixes) {
      if (w.matches(name)) {
        out.add(w);
      }
    }
    return out;
  }

  /**
   * Sends what {@code watch} has not been told since {@code p.told}, then {@link
   * WatchEvent.Synced}: every matching state if {@code everything} or if the ring no longer reaches
   * back that far (then after a {@link WatchEvent.Resync}), else the latest state of each name
   * changed since, at the revision of its last change (the state it has had since).
   *
   * <p>It stops early, leaving the watch behind, once its subscriber cannot take more: a prefix
   * watch of 100,000 semaphores is sent in as many turns as the connection needs (each catch-up
   * goes on where the last stopped), rather than all at once past what the client can read (it was
   * cut by the unread cap, reconnected, and started again, forever). Synced comes only once all of
   * it was sent.
   */
  private void send(Watch watch, Progress p, boolean everything, StateReader state) {
    long now = state.revision();
    Subscriber to = watch.subscriber();
    if (p.told > now) {
      // told of revisions this node never applied: a start is placed after everything committed,
      // so that was another history (a single node restarted without its data, or restored from
      // an older backup): its states restart from here
      p.told = 0;
      p.listedUpTo = null;
      everything = false;
    }
    Name listedUpTo = p.listedUpTo;
    if (listedUpTo != null) {
      // a listing paused: the states it sent that changed since, then the rest of it
      if (!ring.covers(p.listedAt)) {
        p.listedUpTo = null;
        to.deliver(new WatchEvent.Resync(watch.id(), now));
        if (!list(watch, p, null, now, state)) {
          return;
        }
      } else {
        List<ChangeRing.Change> changed =
            ring.since(p.listedAt, n -> watch.matches(n) && n.compareTo(listedUpTo) <= 0);
        for (int i = 0; i < changed.size(); i++) {
          ChangeRing.Change c = changed.get(i);
          tell(watch, c.revision(), c.name(), state);
          if (i + 1 < changed.size()
              && changed.get(i + 1).revision() != c.revision()
              && !to.keepingUp()) {
            // the listed names are told up to this revision; the rest of them next turn
            p.listedAt = c.revision();
            p.behind = true;
            return;
          }
        }
        if (!list(watch, p, listedUpTo, now, state)) {
          return;
        }
      }
    } else if (!everything && p.told > 0 && ring.covers(p.told)) {
      List<ChangeRing.Change> changes = ring.since(p.told, watch::matches);
      for (int i = 0; i < changes.size(); i++) {
        ChangeRing.Change c = changes.get(i);
        tell(watch, c.revision(), c.name(), state);
        boolean lastOfItsRevision =
            i + 1 == changes.size() || changes.get(i + 1).revision() != c.revision();
        // the changes come in the order of their last change, so everything up to this revision
        // has been told once all of its names were: stop there if the subscriber is full
        if (lastOfItsRevision && i + 1 < changes.size() && !to.keepingUp()) {
          p.told = c.revision();
          p.behind = true;
          return;
        }
      }
    } else {
      if (!everything) {
        to.deliver(new WatchEvent.Resync(watch.id(), now));
      }
      if (!list(watch, p, null, now, state)) {
        return;
      }
    }
    p.told = now;
    to.deliver(new WatchEvent.Synced(watch.id(), now));
  }

  /** Tells {@code watch} the state {@code name} has had since {@code revision}. */
  private static void tell(Watch watch, long revision, Name name, StateReader state) {
    Result s = state.state(name, watch.limit(), watch.summary());
    watch
        .subscriber()
        .deliver(
            s == null
                ? new WatchEvent.Deleted(watch.id(), revision, name)
                : new WatchEvent.Changed(watch.id(), revision, name, s));
  }

  /**
   * Sends every matching state after {@code after} (all if null), as of {@code now}, in name order;
   * true once all were sent, false if it paused because the subscriber could not take more (the
   * watch is then behind, and {@link Progress#listedUpTo} says where it goes on).
   */
  private boolean list(Watch watch, Progress p, @Nullable Name after, long now, StateReader state) {
    Subscriber to = watch.subscriber();
    p.listedUpTo = null;
    if (!watch.prefix()) {
      Result s = state.state(watch.name(), watch.limit(), watch.summary());
      if (s != null) {
        to.deliver(new WatchEvent.Changed(watch.id(), now, watch.name(), s));
      }
      return true;
    }
    @Nullable Name cursor = after;
    while (true) {
      Result.NameList page = state.names(watch.name(), cursor, NAMES_PER_PAGE);
      for (Name name : page.names()) {
        Result s = state.state(name, watch.limit(), watch.summary());
        if (s != null) {
          to.deliver(new WatchEvent.Changed(watch.id(), now, name, s));
        }
        cursor = name;
        if (!to.keepingUp()) {
          p.listedUpTo = cursor;
          p.listedAt = now;
          p.behind = true;
          return false;
        }
      }
      if (!page.more() || page.names().isEmpty()) {
        return true;
      }
    }
  }
}
