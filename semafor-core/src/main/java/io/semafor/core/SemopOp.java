package io.semafor.core;

/**
 * One operation of a {@code semop}: {@code delta > 0} adds, {@code delta < 0} takes {@code -delta}
 * all-or-nothing, {@code delta == 0} waits for zero.
 *
 * @param noWait fail the whole {@code semop} with {@code WOULD_BLOCK} if this op is the one that
 *     would make it wait (SysV {@code IPC_NOWAIT})
 * @param owned record the change in the session's adjustment, undone when the session ends (SysV
 *     {@code SEM_UNDO})
 */
public record SemopOp(Name name, long delta, boolean noWait, boolean owned) {
  /** An op with no flags. */
  public static SemopOp of(Name name, long delta) {
    return new SemopOp(name, delta, false, false);
  }

  /** An op with no flags on the name whose UTF-8 text is {@code name}. */
  public static SemopOp of(String name, long delta) {
    return of(Name.of(name), delta);
  }

  /** This op with {@code IPC_NOWAIT}. */
  public SemopOp withNoWait() {
    return new SemopOp(name, delta, true, owned);
  }

  /** This op with {@code SEM_UNDO}. */
  public SemopOp withOwned() {
    return new SemopOp(name, delta, noWait, true);
  }
}
