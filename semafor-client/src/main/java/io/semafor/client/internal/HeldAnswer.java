package io.semafor.client.internal;

import io.semafor.client.SemaforException;
import io.semafor.protocol.v1.Response;

/**
 * The answer of a waiting call, granted or not, not yet its caller's: the caller {@link #take}s it
 * once it is ready to report it, or {@link #giveBack}s it; if the client closes first, the closing
 * gives it back. Close it when done. From {@link Rpc#callHeld}; thread-safe (a claim is taken
 * once).
 */
public final class HeldAnswer implements AutoCloseable {
  private final Response answer;
  private final Claim claim;
  private final Claims claims;

  HeldAnswer(Response answer, Claim claim, Claims claims) {
    this.answer = answer;
    this.claim = claim;
    this.claims = claims;
  }

  /** The answer (not yet the caller's). */
  public Response answer() {
    return answer;
  }

  /**
   * Makes the answer the caller's, to report.
   *
   * @throws SemaforException UNAVAILABLE if the client was closed first: the closing gave back what
   *     it granted
   */
  public Response take() {
    if (!tryTake()) {
      throw Rpc.closedWhileWaiting();
    }
    return answer;
  }

  /** Makes the answer the caller's; false if the client was closed first and gave it back. */
  public boolean tryTake() {
    return claim.take();
  }

  /**
   * Gives back what the answer granted, as its caller will not report it; if the client was closed
   * first, the closing did. Returns false if giving it back failed (the message of the failure is
   * lost: the caller reports its own).
   */
  public boolean giveBack() {
    if (!claim.take()) {
      return true;
    }
    try {
      claim.undo.accept(answer);
      return true;
    } catch (SemaforException e) {
      return false;
    }
  }

  @Override
  public void close() {
    claims.done(claim);
  }
}
