package io.semafor.core;

/** Names a timer the edge arms or cancels on the machine's behalf. */
public sealed interface TimerKey {
  /** The timeout of a waiting request; when it fires, propose {@link Command.ExpireWaiter}. */
  record WaiterTimeout(long sessionId, long requestId) implements TimerKey {}

  /** The end of a lease; when it fires, propose {@link Command.ExpireLease}. */
  record LeaseEnd(long permitId) implements TimerKey {}
}
