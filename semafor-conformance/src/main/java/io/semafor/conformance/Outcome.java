package io.semafor.conformance;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an operation ended, in the kit's terms (conformance/README.md, "Results"): a result whose
 * fields are longs, booleans, strings, lists and maps; a failure with its stable code and the
 * argument its message names; or cancelled by its caller.
 */
public sealed interface Outcome permits Outcome.Result, Outcome.Failure, Outcome.Cancelled {

  /** Succeeded with these fields (a field the client cannot see is absent). */
  record Result(Map<String, Object> fields) implements Outcome {}

  /** Refused with {@code code}; {@code argument} is what the message names ("" if none). */
  record Failure(String code, String argument, String message) implements Outcome {
    /** "amount: must be positive": an argument named before the problem. */
    private static final Pattern ARGUMENT = Pattern.compile("^([A-Za-z_][A-Za-z0-9_.\\[\\]]*): ");

    /**
     * The failure a client reported as {@code code} with {@code message}: the argument is the text
     * before the message's first {@code ": "}, after any {@code "CODE: "} prefix the client adds
     * (conformance/README.md, "Errors"), so every runner reads it the same way.
     */
    public static Failure of(String code, String message) {
      String text =
          message.startsWith(code + ": ") ? message.substring(code.length() + 2) : message;
      Matcher m = ARGUMENT.matcher(text);
      return new Failure(code, m.find() ? m.group(1) : "", text);
    }
  }

  /** Withdrawn by its caller ({@code cancel}). */
  record Cancelled() implements Outcome {}
}
