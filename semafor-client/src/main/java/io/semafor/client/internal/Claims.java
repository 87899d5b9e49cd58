package io.semafor.client.internal;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.protocol.v1.Response;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The {@link Claim}s of a client's waiting calls in progress, so that closing the client can take
 * from each the grant its caller has not received and give it back. Once closed, no new waiting
 * call starts. Thread-safe.
 */
final class Claims {
  private final Set<Claim> open = new HashSet<>();
  private boolean closed;

  /**
   * A claim for a waiting call about to be sent, whose grant {@code undo} gives back.
   *
   * @throws SemaforException UNAVAILABLE if the client is closing
   */
  synchronized Claim open(Consumer<Response> undo) {
    if (closed) {
      throw new SemaforException(ErrorCode.UNAVAILABLE, "the client is closed");
    }
    Claim claim = new Claim(undo);
    open.add(claim);
    return claim;
  }

  /** The call is over: its caller took its answer, or gave up on it. */
  synchronized void done(Claim claim) {
    open.remove(claim);
  }

  /**
   * Closes: no waiting call starts from now on, and each one in progress whose caller has not taken
   * its answer loses it to the closer. Returns the give-backs to run, one for each answer that had
   * come and grants something; answers not come yet will not be acknowledged.
   */
  List<Runnable> close() {
    List<Claim> claims;
    synchronized (this) {
      closed = true;
      claims = new ArrayList<>(open);
      open.clear();
    }
    List<Runnable> giveBacks = new ArrayList<>();
    for (Claim claim : claims) {
      Response answer = claim.reclaim();
      if (answer != null && !answer.hasFailure()) {
        giveBacks.add(() -> claim.undo.accept(answer));
      }
    }
    return giveBacks;
  }
}
