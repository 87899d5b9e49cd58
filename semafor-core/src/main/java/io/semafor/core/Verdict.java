package io.semafor.core;

import io.semafor.ErrorCode;
import org.jspecify.annotations.Nullable;

/**
 * Whether a request can be served now: yes, not yet (it waits), or never as it stands (it fails
 * with {@link #failure}).
 */
final class Verdict {
  static final Verdict SERVABLE = new Verdict(null);
  static final Verdict BLOCKED = new Verdict(null);

  final Result.@Nullable Failure failure;

  private Verdict(Result.@Nullable Failure failure) {
    this.failure = failure;
  }

  static Verdict fail(ErrorCode code, String message) {
    return new Verdict(new Result.Failure(code, message));
  }

  boolean servable() {
    return this == SERVABLE;
  }

  boolean blocked() {
    return this == BLOCKED;
  }
}
