package io.semafor.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What applying one command produced.
 *
 * @param revision the revision the command was applied at
 * @param reply the answer to the command, or null if the request now waits (its reply will come as
 *     an {@link Effect.Complete}) or the command expects none ({@link Command.Acknowledge})
 * @param effects what the edge must do, in order
 */
public record Outcome(long revision, @Nullable Reply reply, List<Effect> effects) {
  /** Copies {@code effects}. */
  public Outcome {
    effects = List.copyOf(effects);
  }
}
