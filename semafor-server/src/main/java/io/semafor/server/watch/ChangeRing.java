package io.semafor.server.watch;

import io.semafor.core.Name;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The names each revision changed, for catching a watcher up after a gap (decision 0041): which
 * semaphores matching its watch changed since the last revision it saw, each once, with the
 * revision of its last change. Every node applies the same log, so every node's ring holds the same
 * changes, and a watcher that follows a new leader is caught up there too.
 *
 * <p>Bounded: it holds at most {@code capacity} (revision, name) pairs and drops the oldest; a
 * watcher behind what it still holds must be resynced ({@link #covers}). It starts empty, knowing
 * nothing before the revision it starts at (a restart, an installed snapshot).
 *
 * <p>Not thread-safe: the applying thread records and reads it.
 */
public final class ChangeRing {
  /** One name's last change since a revision. */
  public record Change(long revision, Name name) {}

  private final long[] revisions;
  private final Name[] names;
  private int oldest;
  private int size;

  /** Every change after this revision is held. */
  private long knownAfter;

  /** The last revision recorded (or started at). */
  private long last;

  /**
   * A ring of {@code capacity} pairs that knows every change after {@code revision}.
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  public ChangeRing(int capacity, long revision) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity: must be positive, was " + capacity);
    }
    this.revisions = new long[capacity];
    this.names = new Name[capacity];
    reset(revision);
  }

  /** Forgets every change: from now on it knows only what comes after {@code revision}. */
  public void reset(long revision) {
    java.util.Arrays.fill(names, null);
    oldest = 0;
    size = 0;
    knownAfter = revision;
    last = revision;
  }

  /**
   * Records that the command at {@code revision} changed {@code changed}, dropping the oldest pairs
   * past the capacity.
   *
   * @throws IllegalArgumentException if {@code revision} is below one already recorded
   */
  public void record(long revision, List<Name> changed) {
    if (revision < last) {
      throw new IllegalArgumentException(
          "revision " + revision + " is before the last recorded " + last);
    }
    last = revision;
    for (Name name : changed) {
      if (size == revisions.length) {
        // its revision's changes are no longer all held: only those after it are
        knownAfter = Math.max(knownAfter, revisions[oldest]);
        names[oldest] = null;
        oldest = (oldest + 1) % revisions.length;
        size--;
      }
      int at = (oldest + size) % revisions.length;
      revisions[at] = revision;
      names[at] = name;
      size++;
    }
  }

  /** Whether every change after {@code revision} is still held. */
  public boolean covers(long revision) {
    return revision >= knownAfter;
  }

  /** The last revision recorded (or started at). */
  public long lastRevision() {
    return last;
  }

  /**
   * The names that {@code matches} accepts and that changed after {@code revision}, each once, in
   * the order of their last change, with that change's revision.
   *
   * @throws IllegalStateException if it no longer holds every change after {@code revision}
   */
  public List<Change> since(long revision, Predicate<Name> matches) {
    if (!covers(revision)) {
      throw new IllegalStateException(
          "changes after " + revision + " are gone: only those after " + knownAfter + " are held");
    }
    List<Change> newestFirst = new ArrayList<>();
    Set<Name> seen = new HashSet<>();
    for (int i = size - 1; i >= 0; i--) {
      int at = (oldest + i) % revisions.length;
      if (revisions[at] <= revision) {
        break;
      }
      Name name = names[at];
      if (name != null && matches.test(name) && seen.add(name)) {
        newestFirst.add(new Change(revisions[at], name));
      }
    }
    Collections.reverse(newestFirst);
    return newestFirst;
  }
}
