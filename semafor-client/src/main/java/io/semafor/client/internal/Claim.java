package io.semafor.client.internal;

import io.semafor.protocol.v1.Response;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Who owns the answer of one waiting call (docs/semantics.md#cancelled-waits): its caller, or the
 * client closing under it. Exactly one of them ends up with a grant, so a grant is either reported
 * to the caller or given back, never lost between the two, and closing acknowledges only what a
 * caller received.
 *
 * <p>States: {@code WAITING} (no answer read yet), {@code ANSWERED} (read, its acknowledgement
 * queued, the caller has not taken it), {@code TAKEN} (the caller's: it reports the grant, or gives
 * it back itself), {@code ABANDONED} (the client closed before the answer came: the answer is never
 * acknowledged, so the session's end gives its grant back) and {@code RECLAIMED} (the client closed
 * after the answer came but before the caller took it: the closer gives it back with {@link
 * #undo}). The session machine queues the acknowledgement of an answer as it reads it, before the
 * transition to {@code ANSWERED}, so a give-back sent after it carries the acknowledgement, or
 * follows it, and never finds its grant still in transit. Thread-safe: the reader, the caller and
 * the closer meet here.
 */
final class Claim {
  enum State {
    WAITING,
    ANSWERED,
    TAKEN,
    ABANDONED,
    RECLAIMED
  }

  /** Gives back what a granted answer handed over (an increment, a release, an inverse). */
  final Consumer<Response> undo;

  private State state = State.WAITING;
  private @Nullable Response answer;

  Claim(Consumer<Response> undo) {
    this.undo = undo;
  }

  /**
   * The answer was read. Returns false if the client closed first: then it is to be left
   * unacknowledged, and goes back when the session ends.
   */
  synchronized boolean answered(Response answer) {
    if (state == State.ABANDONED) {
      return false;
    }
    if (state == State.WAITING) {
      state = State.ANSWERED;
      this.answer = answer;
    }
    return true;
  }

  /** The caller takes the answer; false if the closer has it (and gives back what it granted). */
  synchronized boolean take() {
    switch (state) {
      case WAITING, ANSWERED -> {
        state = State.TAKEN;
        return true;
      }
      case TAKEN -> {
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  /**
   * The client closes: takes the answer from a caller that has not taken it. Returns the answer if
   * it had come (the closer gives it back); null if the caller has it, or if none came (none will
   * be acknowledged).
   */
  synchronized @Nullable Response reclaim() {
    switch (state) {
      case WAITING -> {
        state = State.ABANDONED;
        return null;
      }
      case ANSWERED -> {
        state = State.RECLAIMED;
        return answer;
      }
      default -> {
        return null;
      }
    }
  }

  synchronized State state() {
    return state;
  }
}
