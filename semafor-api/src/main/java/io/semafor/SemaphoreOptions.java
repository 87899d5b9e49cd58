package io.semafor;

/**
 * What a semaphore is created with besides its name and initial value. Immutable; start from {@link
 * #DEFAULT} and change what you need: {@code SemaphoreOptions.DEFAULT.capacity(3)}.
 *
 * @param capacity the ceiling of {@code value + owned + leased + undelivered}, which also enables
 *     slot numbers; {@link #NO_CAPACITY} for none (the ceiling is then 2^63-1 and there are no
 *     slots)
 * @param policy the grant order
 * @param maxPerSession how many owned permits one session may hold and request at once; {@link
 *     #NO_LIMIT} for no limit
 */
public record SemaphoreOptions(long capacity, Policy policy, int maxPerSession) {
  /** {@link #capacity} value meaning "no capacity". */
  public static final long NO_CAPACITY = 0;

  /** {@link #maxPerSession} value meaning "no limit". */
  public static final int NO_LIMIT = 0;

  /** No capacity, FIFO, no per-session limit: what {@code create(name, initial)} uses. */
  public static final SemaphoreOptions DEFAULT =
      new SemaphoreOptions(NO_CAPACITY, Policy.FIFO, NO_LIMIT);

  /** The options with a capacity; the machine refuses a capacity below 1. */
  public static SemaphoreOptions withCapacity(long capacity) {
    return new SemaphoreOptions(capacity, Policy.FIFO, NO_LIMIT);
  }

  /** These options with another capacity. */
  public SemaphoreOptions capacity(long newCapacity) {
    return new SemaphoreOptions(newCapacity, policy, maxPerSession);
  }

  /** These options with another policy. */
  public SemaphoreOptions policy(Policy newPolicy) {
    return new SemaphoreOptions(capacity, newPolicy, maxPerSession);
  }

  /** These options with another per-session limit. */
  public SemaphoreOptions maxPerSession(int newMaxPerSession) {
    return new SemaphoreOptions(capacity, policy, newMaxPerSession);
  }

  /** True if a capacity was given. */
  public boolean hasCapacity() {
    return capacity != NO_CAPACITY;
  }
}
