package io.semafor.core.model;

import io.semafor.core.Effect;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the model and the machine must agree on: replies and completions, in order, with failures
 * compared by code (the model does not write messages).
 */
final class Equivalence {
  private Equivalence() {}

  static @Nullable Reply normalize(@Nullable Reply reply) {
    if (reply == null) {
      return null;
    }
    Result result = reply.result();
    if (result instanceof Result.Failure f) {
      result = new Result.Failure(f.code(), "");
    }
    return new Reply(reply.sessionId(), reply.requestId(), reply.revision(), result);
  }

  /** The completions of an outcome, in order, normalised. */
  static List<Reply> completions(Outcome outcome) {
    List<Reply> out = new ArrayList<>();
    for (Effect e : outcome.effects()) {
      if (e instanceof Effect.Complete c) {
        out.add(normalize(c.reply()));
      }
    }
    return out;
  }
}
