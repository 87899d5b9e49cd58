package io.semafor.core.model;

/**
 * One step of a generated script, made of small numbers so jqwik can shrink it. The {@link Driver}
 * turns it into a command, resolving picks against what the clients have seen so far.
 */
sealed interface Action {
  /** Opens a session with a TTL of {@code ttlSeconds}. */
  record Connect(int ttlSeconds) implements Action {}

  /**
   * A client sends an operation of {@code kind} on name {@code name} of the pool; {@code pick}
   * chooses among known request ids or permit ids; {@code acks}: 0 acknowledges everything
   * received, 1 nothing, 2 every other reply.
   */
  record Send(
      int client,
      int kind,
      int name,
      int otherName,
      long amount,
      long otherAmount,
      int timeout,
      int flags,
      int pick,
      int acks)
      implements Action {}

  /** A client sends again one of its earlier requests under the same id. */
  record Retry(int client, int pick) implements Action {}

  /** Log time moves forward. */
  record Tick(int millis) implements Action {}

  /** A keep-alive that carries acknowledgements. */
  record KeepAlive(int client) implements Action {}

  /**
   * The client falls silent and the leader's liveness timer proposes its expiry: {@code early} one
   * nanosecond before its TTL has passed since its last command (which must be refused), else
   * exactly then.
   */
  record ExpireSession(int client, boolean early) implements Action {}

  /** The client closes its session. */
  record Close(int client) implements Action {}

  /**
   * One of the armed timers fires: {@code when} 0 one nanosecond before its deadline, 1 exactly at
   * it, 2 whenever log time now is (possibly long before or after).
   */
  record Fire(int pick, int when) implements Action {}

  /** A timer that was never armed fires (a stale or foreign expiry). */
  record FireStale(int client, int pick) implements Action {}
}
