package io.semafor.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a subcommand's result goes: a line of text, or (with {@code --json}) one JSON object on one
 * line. Results are built as ordered maps so the JSON keys come out in a stable order.
 */
final class Output {
  /** Jackson, loaded on the first JSON output only: its ~375 classes cost a text command 0.1 s+. */
  private static final class Json {
    static final ObjectMapper MAPPER =
        new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  }

  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean json;

  Output(PrintWriter out, PrintWriter err, boolean json) {
    this.out = out;
    this.err = err;
    this.json = json;
  }

  boolean json() {
    return json;
  }

  /** Prints {@code text}, or {@code fields} as one JSON object. */
  void result(String text, Map<String, ?> fields) {
    out.println(json ? toJson(fields) : text);
    out.flush();
  }

  /**
   * Reports a timeout: {@code semafor: TIMED_OUT: TEXT} on the error stream in text mode (so a
   * script's captured output holds only results), {@code fields} on the output in JSON mode.
   */
  void timedOut(String text, Map<String, ?> fields) {
    if (json) {
      result(text, fields);
    } else {
      err.println("semafor: TIMED_OUT: " + text);
      err.flush();
    }
  }

  /** Prints a line of text in text mode, nothing in JSON mode (progress, not a result). */
  void note(String text) {
    if (!json) {
      out.println(text);
      out.flush();
    }
  }

  /** An ordered map from alternating keys and values. */
  static Map<String, Object> fields(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static String toJson(Object value) {
    try {
      return Json.MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
