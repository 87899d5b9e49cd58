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
 * @param changed the semaphores the command created, deleted or may have changed (value, queue,
 *     holders, leases, undelivered amounts), each once, in the order first changed: what watches
 *     are told about. May name a semaphore whose state ended as it began; never misses one that
 *     changed.
 */
public record Outcome(
    long revision, @Nullable Reply reply, List<Effect> effects, List<Name> changed) {
  /** Copies {@code effects} and {@code changed}. */
  public Outcome {
    effects = List.copyOf(effects);
    changed = List.copyOf(changed);
  }

  /** An outcome that changed no semaphore. */
  public Outcome(long revision, @Nullable Reply reply, List<Effect> effects) {
    this(revision, reply, effects, List.of());
  }
}
