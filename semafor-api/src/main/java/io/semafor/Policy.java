package io.semafor;

/** How a semaphore orders its waiters (docs/semantics.md#grant-order). */
public enum Policy {
  /**
   * The default: a waiter that cannot be served holds back every later waiter that takes from the
   * same semaphore, so a large request is never starved by a stream of small ones.
   */
  FIFO(1),
  /**
   * A later request that fits may pass a blocked earlier one (SysV/Linux behaviour): higher
   * throughput, starvation possible. Opt-in per semaphore.
   */
  BARGING(2);

  private final int number;

  Policy(int number) {
    this.number = number;
  }

  /** The stable number of this policy on the wire and in snapshots. */
  public int number() {
    return number;
  }

  /**
   * The policy with this number.
   *
   * @throws IllegalArgumentException if no policy has that number
   */
  public static Policy ofNumber(int number) {
    for (Policy p : values()) {
      if (p.number == number) {
        return p;
      }
    }
    throw new IllegalArgumentException("no policy numbered " + number);
  }
}
