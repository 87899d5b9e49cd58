package io.semafor.it.conformance;

import java.util.Map;

/**
 * How an operation ended, in the kit's terms (conformance/README.md, "Results"): a result whose
 * fields are longs, booleans, strings, lists and maps; a failure with its stable code and the
 * argument its message names; or cancelled by its caller.
 */
sealed interface Outcome permits Outcome.Result, Outcome.Failure, Outcome.Cancelled {

  /** Succeeded with these fields (a field the client cannot see is absent). */
  record Result(Map<String, Object> fields) implements Outcome {}

  /** Refused with {@code code}; {@code argument} is what the message names ("" if none). */
  record Failure(String code, String argument, String message) implements Outcome {}

  /** Withdrawn by its caller ({@code cancel}). */
  record Cancelled() implements Outcome {}
}
