package io.semafor.server.session;

import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.security.Principal;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link ServerSession} asks its driver to do, in the order given: each step's effects are
 * carried out in order, after the machine's state has changed, so an effect that loops back into
 * the machine (a local replicator applies a command on the calling thread) finds it ready.
 */
public sealed interface ServerEffect {
  /** Writes {@code frame} to the client. */
  record Send(ServerFrame frame) implements ServerEffect {}

  /**
   * Writes {@code frame} (a {@code Fatal}, a refused {@code Welcome}), then closes the connection:
   * once it is written, or after a grace period if the client does not read it. The machine handles
   * nothing more.
   */
  record SendAndClose(ServerFrame frame) implements ServerEffect {}

  /**
   * Reads from the connection ({@code on}) or stops reading from it: frames are parked while the
   * client does not read its replies or has too many reads being answered.
   */
  record AutoRead(boolean on) implements ServerEffect {}

  /** The client of session {@code sessionId} was heard from now (its liveness, not logged). */
  record Heard(long sessionId) implements ServerEffect {}

  /**
   * Replies for session {@code sessionId} go to this connection from now on; any other connection
   * it had is superseded.
   */
  record Attach(long sessionId) implements ServerEffect {}

  /** The connection no longer carries session {@code sessionId}; the session lives on. */
  record Detach(long sessionId) implements ServerEffect {}

  /**
   * Proposes opening a session; its outcome comes back as {@link ServerSession#opened} or {@link
   * ServerSession#openFailed}, or the node's refusal as {@link ServerSession#notLeader}.
   */
  record OpenSession(Command.OpenSession command) implements ServerEffect {}

  /**
   * Proposes a client's request; its reply goes where the session is attached when it is applied.
   *
   * @param audited what the audit log calls it, to be written with the outcome; null if not audited
   */
  record SubmitRequest(Command.Request command, @Nullable String audited) implements ServerEffect {}

  /**
   * Proposes acknowledgements; once applied, {@link ServerSession#acknowledged} is called with
   * {@code then}.
   *
   * @param then the frame that waits for them (a keep-alive's pong with an id, or the answer to a
   *     request refused at the edge); null for the pongs owed in order
   */
  record Acknowledge(Command.Acknowledge command, @Nullable ServerFrame then)
      implements ServerEffect {}

  /** Reads {@code query} in the apply order and answers the client's read {@code id}. */
  record Read(long id, Query query) implements ServerEffect {}

  /** Starts {@code watch} at a place in the apply order (a barrier). */
  record StartWatch(WatchRequest watch) implements ServerEffect {}

  /** Stops the running watch {@code id}. */
  record StopWatch(long id) implements ServerEffect {}

  /** Takes a snapshot and streams it to the client as its snapshot {@code id}. */
  record Snapshot(long id) implements ServerEffect {}

  /** Writes a line to the audit log. */
  record Audit(String action, Principal who, String address, String outcome)
      implements ServerEffect {}

  /**
   * Refuses, through the machine, the waiting requests of session {@code sessionId}, whose token
   * expired: UNAUTHENTICATED with {@code reason}.
   */
  record RefuseWaiting(long sessionId, String reason) implements ServerEffect {}
}
