package io.semafor.client;

/**
 * What a semaphore is created with besides its name and initial value. Immutable; start from {@link
 * #DEFAULT} and change what you need: {@code SemaphoreOptions.DEFAULT.capacity(3)}.
 *
 * @param capacity the ceiling of value plus what is held, which also enables slot numbers; 0 for
 *     none
 * @param policy the grant order
 * @param maxPerSession how many owned permits one session may hold at once; 0 for no limit
 */
public record SemaphoreOptions(long capacity, Policy policy, int maxPerSession) {
  /** No capacity, FIFO, no per-session limit. */
  public static final SemaphoreOptions DEFAULT = new SemaphoreOptions(0, Policy.FIFO, 0);

  /** How a semaphore orders its waiters (docs/semantics.md#grant-order). */
  public enum Policy {
    /** A waiter that cannot be served holds back later ones; large requests are not starved. */
    FIFO,
    /** A later request that fits may pass a blocked earlier one; starvation possible. */
    BARGING
  }

  /** These options with a capacity. */
  public SemaphoreOptions capacity(long value) {
    return new SemaphoreOptions(value, policy, maxPerSession);
  }

  /** These options with a policy. */
  public SemaphoreOptions policy(Policy value) {
    return new SemaphoreOptions(capacity, value, maxPerSession);
  }

  /** These options with a per-session limit. */
  public SemaphoreOptions maxPerSession(int value) {
    return new SemaphoreOptions(capacity, policy, value);
  }
}
