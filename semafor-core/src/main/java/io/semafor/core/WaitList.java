package io.semafor.core;

import java.util.LinkedHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One WaitMany list of a session (IRIS {@code AddToWaitMany}/{@code WaitMany}): entries in the
 * order they were added, and where the round robin of reports resumes.
 */
final class WaitList {
  private final Session session;
  final long listId;

  /**
   * Keyed by the semaphore object, so an entry of a deleted semaphore stays apart from a new one.
   */
  final LinkedHashMap<Semaphore, WaitManyEntry> entries = new LinkedHashMap<>();

  long nextOrdinal = 1;

  /** The ordinal of the entry reported last; the next report starts after it. */
  long lastReported;

  /** The {@code waitMany} call waiting on this list, if any. */
  @Nullable WaitManyCall call;

  WaitList(Session session, long listId) {
    this.session = session;
    this.listId = listId;
  }

  Session session() {
    return session;
  }

  boolean hasReport() {
    for (WaitManyEntry entry : entries.values()) {
      if (entry.ready()) {
        return true;
      }
    }
    return false;
  }
}
