package io.semafor.core;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import java.util.List;

/**
 * What the state machine applies: a client's {@link Request}, or one of the commands the edge
 * proposes on a client's or a timer's behalf. Commands are plain data, so the same log of commands
 * yields the same state on every replica.
 *
 * <p>Durations ({@code ttl}, {@code timeout}, {@code leaseTtl}) are nanoseconds of log time.
 */
public sealed interface Command {

  /**
   * Opens a session that lives until closed or until {@code ttl} passes without a sign of life.
   * Answers {@link Result.SessionOpened} with the new session's id. {@code owner} says who may
   * resume it. {@code idEntropy}, drawn by the edge from a secure random source, keys the machine's
   * ids the first time one comes (docs/security.md#ids); later ones are ignored, so every replica
   * keys its ids alike.
   */
  record OpenSession(long ttl, ClientInfo client, SessionOwner owner, Secret idEntropy)
      implements Command {
    /**
     * A session owned by nobody in particular, without a resume secret or id entropy (tests, and
     * log entries written before sessions had owners).
     */
    public OpenSession(long ttl, ClientInfo client) {
      this(ttl, client, SessionOwner.NONE, Secret.NONE);
    }

    /** A session whose client said nothing about itself. */
    public OpenSession(long ttl) {
      this(ttl, ClientInfo.NONE);
    }
  }

  /**
   * Ends a session whose TTL passed without a keep-alive, as decided by the leader's liveness
   * timer. Ignored (answers {@code Expiry(false)}) if the session's last logged command is less
   * than its TTL ago, so an expiry can never come early.
   */
  record ExpireSession(long sessionId) implements Command {}

  /**
   * Times out a waiting request, proposed when its timer fires. Ignored if the request no longer
   * waits or its deadline has not been reached in log time.
   */
  record ExpireWaiter(long sessionId, long requestId) implements Command {}

  /**
   * Refuses a waiting request with {@code code} and {@code message}, proposed by the edge when the
   * request's principal may no longer make it (its rules were reloaded, its token revoked or
   * expired; decision 0047). It is withdrawn as a cancel withdraws it, so nothing it would have
   * taken is lost, and answered with the failure. Ignored if the request no longer waits.
   */
  record RefuseWaiter(long sessionId, long requestId, ErrorCode code, String message)
      implements Command {}

  /**
   * Hands out the next slice of grants an earlier command left pending ({@link
   * Effect.GrantsPending}): proposed by the leader, like an expiry, so that a change that serves
   * many waiters at once does not hold every other client back while it is done. Produces no reply;
   * a no-op when nothing is pending.
   */
  record ContinueGrants() implements Command {}

  /** Ends a lease whose TTL passed. Ignored if the lease is gone or was renewed past now. */
  record ExpireLease(long permitId) implements Command {}

  /**
   * Acknowledges replies the client has received, when it has no request to carry the
   * acknowledgement (a keep-alive with acknowledgements). Produces no reply.
   */
  record Acknowledge(long sessionId, List<Long> acks) implements Command {
    /** Copies {@code acks}. */
    public Acknowledge {
      acks = List.copyOf(acks);
    }
  }

  /**
   * One request of a session. {@code requestId}s of one session strictly increase in the order the
   * client issues requests; a request whose id was already applied is answered from the session's
   * record of it and applied only once. {@code acks} names replies the client has received
   * (docs/semantics.md#delivery: a grant stays undelivered until acknowledged).
   */
  record Request(long sessionId, long requestId, List<Long> acks, Operation operation)
      implements Command {
    /** Copies {@code acks}. */
    public Request {
      acks = List.copyOf(acks);
    }

    /** A request acknowledging nothing. */
    public Request(long sessionId, long requestId, Operation operation) {
      this(sessionId, requestId, List.of(), operation);
    }
  }
}
