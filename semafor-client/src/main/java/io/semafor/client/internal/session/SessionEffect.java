package io.semafor.client.internal.session;

import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.WatchEvent;

/**
 * What a {@link ClientSession} asks its driver to do, or tells it: taken with {@link
 * ClientSession#take()} after every input, in order.
 */
public sealed interface SessionEffect {

  /**
   * Open connection number {@code conn} to {@code address} ({@code host:port}), closing any other
   * first. Report {@link ClientSession#connected} or {@link ClientSession#disconnected}.
   */
  record Dial(long conn, String address) implements SessionEffect {}

  /** Write {@code frame} whole on the current connection, in the order the effects come. */
  record Send(ClientFrame frame) implements SessionEffect {}

  /** Close connection {@code conn}; the machine already counts it as gone. */
  record Hangup(long conn, String reason) implements SessionEffect {}

  /**
   * A {@code Welcome} attached a session: a new one ({@code resumed} false) or the same one again.
   * {@code epoch} increases with each new session; a permit of an older epoch went back.
   */
  record Opened(long sessionId, boolean resumed, long ttlNanos, String principal, long epoch)
      implements SessionEffect {}

  /**
   * The server refused the {@code Hello} for a reason retrying does not fix (credentials, an
   * argument, its session limit); the machine went idle, everything pending failed with it.
   */
  record HelloRefused(SessionError error) implements SessionEffect {}

  /**
   * The answer to request {@code requestId} ({@code request} as submitted). For a request submitted
   * to confirm its delivery, only once its acknowledgement is applied.
   */
  record Completed(long requestId, Request request, Response response) implements SessionEffect {}

  /**
   * Request {@code requestId} has no answer and will get none: the session ended, the client was
   * closed, or no server answered for the give-up time ({@link SessionError#outcomeKnown} says
   * whether it may have been applied).
   */
  record Failed(long requestId, Request request, SessionError error) implements SessionEffect {}

  /** The answer to read {@code readId} (a failure, if the server refused it). */
  record ReadCompleted(long readId, ReadResponse response) implements SessionEffect {}

  /** Read {@code readId} will get no answer (the client was closed, or no server answered). */
  record ReadFailed(long readId, SessionError error) implements SessionEffect {}

  /** An event of watch {@code watchId} for its reader (duplicates after a resume dropped). */
  record WatchEventReceived(long watchId, WatchEvent event) implements SessionEffect {}

  /** Watch {@code watchId} ended: the server refused or ended it, or the client closed. */
  record WatchEnded(long watchId, SessionError error) implements SessionEffect {}

  /**
   * The session ended ({@code SESSION_EXPIRED}): what it owned went back; pending requests failed
   * (a {@link Failed} each, before this). A new session opens on the next use.
   */
  record SessionLost(SessionError error) implements SessionEffect {}

  /**
   * The server applied every acknowledgement sent before {@link
   * ClientSession#confirmAcknowledgements} returned {@code token}: what those answers granted is
   * delivered.
   */
  record AcknowledgementsConfirmed(long token) implements SessionEffect {}

  /** The machine is closed: {@code close_session} was answered, or could not be sent. */
  record Closed() implements SessionEffect {}
}
