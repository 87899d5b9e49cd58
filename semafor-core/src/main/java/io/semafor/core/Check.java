package io.semafor.core;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Argument checks. Each returns null if the argument is acceptable, else the failure naming it, so
 * a handler checks everything before it changes anything.
 */
final class Check {
  private Check() {}

  static Result.Failure invalid(String argument, String problem) {
    return new Result.Failure(ErrorCode.INVALID_ARGUMENT, argument + ": " + problem);
  }

  static Result.Failure exhausted(String limit, long bound, String problem) {
    return new Result.Failure(
        ErrorCode.RESOURCE_EXHAUSTED, limit + " (" + bound + ") reached: " + problem);
  }

  /**
   * Why {@code client} cannot be kept, or null if it can: a name or host longer than {@link
   * ClientInfo#MAX_BYTES} in UTF-8, a pid below 0.
   */
  static Result.@Nullable Failure client(ClientInfo client) {
    if (client.name().getBytes(StandardCharsets.UTF_8).length > ClientInfo.MAX_BYTES) {
      return invalid("clientName", "longer than " + ClientInfo.MAX_BYTES + " bytes");
    }
    if (client.host().getBytes(StandardCharsets.UTF_8).length > ClientInfo.MAX_BYTES) {
      return invalid("clientHost", "longer than " + ClientInfo.MAX_BYTES + " bytes");
    }
    if (client.pid() < 0) {
      return invalid("clientPid", "must not be negative, was " + client.pid());
    }
    return null;
  }

  static Result.@Nullable Failure positive(String argument, long value) {
    return value > 0 ? null : invalid(argument, "must be positive, was " + value);
  }

  static Result.@Nullable Failure timeout(long timeout) {
    return timeout >= -1
        ? null
        : invalid(
            "timeout", "must be -1 (forever), 0 (no wait) or a positive duration, was " + timeout);
  }

  /** Why {@code name} cannot be a semaphore name, or null if it can. */
  static Result.@Nullable Failure name(String argument, Name name, int maxBytes) {
    if (name.length() == 0) {
      return invalid(argument, "must not be empty");
    }
    if (name.length() > maxBytes) {
      return invalid(
          argument, "is " + name.length() + " bytes, more than the limit of " + maxBytes);
    }
    if (!Name.isUtf8(name.bytes())) {
      return invalid(argument, name + " is not valid UTF-8");
    }
    return null;
  }

  /**
   * The failure for a name that names no semaphore: INVALID_ARGUMENT if it could not name one, else
   * NOT_FOUND.
   */
  static Result.Failure missing(String argument, Name name, int maxBytes) {
    Result.Failure invalid = name(argument, name, maxBytes);
    if (invalid != null) {
      return invalid;
    }
    return new Result.Failure(
        ErrorCode.NOT_FOUND, argument + ": no semaphore named " + name + " exists");
  }

  /**
   * Checks an owned request against the semaphore's {@code maxPerSession}
   * (docs/semantics.md#max-per-session).
   */
  static Result.@Nullable Failure perSession(
      String argument, Session session, Semaphore s, long requested) {
    int max = s.maxPerSession;
    if (max == SemaphoreOptions.NO_LIMIT || requested == 0) {
      return null;
    }
    if (requested > max) {
      return invalid(
          argument,
          "asks for " + requested + " owned permits of " + s + ", whose maxPerSession is " + max);
    }
    Holding h = session.findHolding(s);
    long held = h == null ? 0 : h.owned() + h.pendingOwned;
    if (held + requested > max) {
      return new Result.Failure(
          ErrorCode.ALREADY_HELD,
          argument
              + ": the session already holds or awaits "
              + held
              + " of "
              + s
              + ", whose maxPerSession is "
              + max);
    }
    return null;
  }

  /** A take larger than the capacity could never be granted; refuse it rather than queue it. */
  static Result.@Nullable Failure withinCapacity(String argument, Semaphore s, long amount) {
    if (s.hasCapacity() && amount > s.ceiling) {
      return invalid(
          argument, "takes " + amount + " from " + s + ", more than its capacity " + s.ceiling);
    }
    return null;
  }
}
