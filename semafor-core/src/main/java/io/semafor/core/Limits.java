package io.semafor.core;

/**
 * The limits of docs/semantics.md#limits. Every replica of one group must use the same limits,
 * since they decide which commands fail. Validated once at construction, then immutable.
 *
 * @param maxNameBytes longest name in bytes
 * @param maxSemaphores most semaphores at once
 * @param maxSessions most sessions at once
 * @param maxWaitersPerSession most queued requests plus WaitMany entries one session may have
 * @param maxWaitManyEntries most entries in one WaitMany list
 * @param maxSemopOps most operations in one {@code semop}
 * @param maxUnackedReplies most replies one session may leave unacknowledged; past it, new requests
 *     are refused until the client acknowledges
 * @param maxSlottedCapacity the largest capacity whose permits carry slot numbers; a larger
 *     capacity is a ceiling only, since a slot per permit would not fit in memory or in a reply
 * @param grantsPerCommand most waiters one command serves; the rest are served by {@link
 *     Command.ContinueGrants} commands, in the same order, so that a change that serves a hundred
 *     thousand waiters does not stall every other client (docs/decisions/0019-grants-in-slices.md)
 */
public record Limits(
    int maxNameBytes,
    long maxSemaphores,
    int maxSessions,
    int maxWaitersPerSession,
    int maxWaitManyEntries,
    int maxSemopOps,
    int maxUnackedReplies,
    int maxSlottedCapacity,
    int grantsPerCommand) {

  /** The defaults of docs/semantics.md#limits. */
  public static final Limits DEFAULT =
      new Limits(1024, Long.MAX_VALUE, 100_000, 4096, 4096, 500, 65_536, 65_536, 128);

  /**
   * Checks every limit.
   *
   * @throws IllegalArgumentException naming the first limit out of range, its bound and its value
   */
  public Limits {
    requireAtLeast("maxNameBytes", maxNameBytes, 1);
    requireAtLeast("maxSemaphores", maxSemaphores, 1);
    requireAtLeast("maxSessions", maxSessions, 1);
    requireAtLeast("maxWaitersPerSession", maxWaitersPerSession, 1);
    requireAtLeast("maxWaitManyEntries", maxWaitManyEntries, 64);
    requireAtLeast("maxSemopOps", maxSemopOps, 1);
    requireAtLeast("maxUnackedReplies", maxUnackedReplies, 16);
    requireAtLeast("maxSlottedCapacity", maxSlottedCapacity, 0);
    requireAtLeast("grantsPerCommand", grantsPerCommand, 1);
  }

  private static void requireAtLeast(String setting, long value, long bound) {
    if (value < bound) {
      throw new IllegalArgumentException(setting + " < " + bound + ": " + value);
    }
  }

  /** These limits with another {@link #maxSessions}. */
  public Limits withMaxSessions(int value) {
    return new Limits(
        maxNameBytes,
        maxSemaphores,
        value,
        maxWaitersPerSession,
        maxWaitManyEntries,
        maxSemopOps,
        maxUnackedReplies,
        maxSlottedCapacity,
        grantsPerCommand);
  }

  /** These limits with another {@link #maxSemaphores}. */
  public Limits withMaxSemaphores(long value) {
    return new Limits(
        maxNameBytes,
        value,
        maxSessions,
        maxWaitersPerSession,
        maxWaitManyEntries,
        maxSemopOps,
        maxUnackedReplies,
        maxSlottedCapacity,
        grantsPerCommand);
  }

  /** These limits with another {@link #maxWaitersPerSession}. */
  public Limits withMaxWaitersPerSession(int value) {
    return new Limits(
        maxNameBytes,
        maxSemaphores,
        maxSessions,
        value,
        maxWaitManyEntries,
        maxSemopOps,
        maxUnackedReplies,
        maxSlottedCapacity,
        grantsPerCommand);
  }

  /** These limits with another {@link #maxUnackedReplies}. */
  public Limits withMaxUnackedReplies(int value) {
    return new Limits(
        maxNameBytes,
        maxSemaphores,
        maxSessions,
        maxWaitersPerSession,
        maxWaitManyEntries,
        maxSemopOps,
        value,
        maxSlottedCapacity,
        grantsPerCommand);
  }

  /** These limits with another {@link #grantsPerCommand}. */
  public Limits withGrantsPerCommand(int value) {
    return new Limits(
        maxNameBytes,
        maxSemaphores,
        maxSessions,
        maxWaitersPerSession,
        maxWaitManyEntries,
        maxSemopOps,
        maxUnackedReplies,
        maxSlottedCapacity,
        value);
  }
}
