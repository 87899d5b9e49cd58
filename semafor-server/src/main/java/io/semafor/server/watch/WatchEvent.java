package io.semafor.server.watch;

import io.semafor.core.Name;
import io.semafor.core.Result;

/**
 * What a watch tells its subscriber (decision 0041, docs/protocol.md "Watches"), each for the watch
 * {@code id} of that subscriber, at a revision.
 */
public sealed interface WatchEvent {
  /** The watch's id, as the subscriber gave it. */
  long id();

  /** The revision the event reflects. */
  long revision();

  /**
   * A semaphore's state right after the command at {@code revision} changed it (live), or its
   * current state (catching up: {@code revision} is then its last change's).
   *
   * @param state a {@link Result.SemaphoreDetail} (one page of each list) or, for a summary watch,
   *     a {@link Result.SemaphoreStatus}
   */
  record Changed(long id, long revision, Name name, Result state) implements WatchEvent {}

  /** The semaphore no longer exists (deleted at {@code revision}, or by then). */
  record Deleted(long id, long revision, Name name) implements WatchEvent {}

  /**
   * Everything up to {@code revision} has been told: after a start, a reconnect or an overflow, the
   * states sent since the last {@link Synced} are each semaphore's latest; live events follow.
   */
  record Synced(long id, long revision) implements WatchEvent {}

  /**
   * The server no longer knows what changed after the revision the subscriber gave (too old, or the
   * node restarted since): every matching semaphore's current state follows, then {@link Synced}. A
   * subscriber forgets the states it held that are not sent again.
   */
  record Resync(long id, long revision) implements WatchEvent {}
}
