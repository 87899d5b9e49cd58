package io.semafor.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Holds outcomes to a case's expectations, and keeps its variables (conformance/README.md,
 * "Expectations"). An object is matched partially (only the fields it names), a list exactly (same
 * length, element by element), a {@code "$name"} string by the variable's value, and {@code {"gt":
 * x}} (ge, lt, le, ne) by comparison.
 */
public final class Expectations {
  private static final Set<String> MATCHERS = Set.of("gt", "ge", "lt", "le", "ne");

  private final Map<String, Object> variables = new HashMap<>();

  /** Binds each variable of {@code bind} to its field of {@code result}. */
  public void bind(Map<String, String> bind, Outcome outcome) {
    if (bind.isEmpty()) {
      return;
    }
    if (!(outcome instanceof Outcome.Result result)) {
      throw new AssertionError("bind " + bind + " needs a result, the outcome was " + outcome);
    }
    for (Map.Entry<String, String> b : bind.entrySet()) {
      Object value = result.fields().get(b.getValue());
      if (value == null) {
        throw new AssertionError("bind " + b.getKey() + ": the result has no " + b.getValue());
      }
      variables.put(b.getKey(), value);
    }
  }

  /** The arguments with every {@code "$name"} replaced by the variable's value. */
  public JsonNode resolve(JsonNode args) {
    if (args.isTextual() && args.asText().startsWith("$")) {
      Object value = variable(args.asText());
      JsonNodeFactory nodes = JsonNodeFactory.instance;
      return value instanceof Long l
          ? nodes.numberNode(l)
          : value instanceof Boolean b ? nodes.booleanNode(b) : nodes.textNode(value.toString());
    }
    if (args instanceof ObjectNode o) {
      ObjectNode copy = o.objectNode();
      o.properties().forEach(e -> copy.set(e.getKey(), resolve(e.getValue())));
      return copy;
    }
    if (args.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      for (JsonNode element : args) {
        copy.add(resolve(element));
      }
      return copy;
    }
    return args;
  }

  /**
   * What is wrong with {@code outcome} against {@code expect} (null: it must be a result), or empty
   * if it matches.
   */
  public Optional<String> mismatch(@Nullable JsonNode expect, Outcome outcome) {
    if (expect == null) {
      return outcome instanceof Outcome.Result
          ? Optional.empty()
          : Optional.of("expected success, was " + outcome);
    }
    if (expect.has("error")) {
      if (!(outcome instanceof Outcome.Failure f)) {
        return Optional.of("expected error " + expect.get("error").asText() + ", was " + outcome);
      }
      if (!f.code().equals(expect.get("error").asText())) {
        return Optional.of("expected error " + expect.get("error").asText() + ", was " + f);
      }
      if (expect.has("argument") && !f.argument().equals(expect.get("argument").asText())) {
        return Optional.of(
            "expected the error to name argument '"
                + expect.get("argument").asText()
                + "', was "
                + f);
      }
      return Optional.empty();
    }
    if (expect.has("cancelled")) {
      return outcome instanceof Outcome.Cancelled
          ? Optional.empty()
          : Optional.of("expected cancelled, was " + outcome);
    }
    if (!(outcome instanceof Outcome.Result result)) {
      return Optional.of("expected " + expect + ", was " + outcome);
    }
    List<String> problems = new ArrayList<>();
    match(expect, result.fields(), "", problems);
    return problems.isEmpty()
        ? Optional.empty()
        : Optional.of(String.join("; ", problems) + " (result " + result.fields() + ")");
  }

  private void match(JsonNode expected, @Nullable Object actual, String at, List<String> problems) {
    if (expected.isObject()
        && expected.size() == 1
        && MATCHERS.contains(expected.fieldNames().next())) {
      String op = expected.fieldNames().next();
      long bound = number(expected.get(op));
      if (!(actual instanceof Long a)) {
        problems.add(at + ": expected a number " + op + " " + bound + ", was " + actual);
        return;
      }
      boolean ok =
          switch (op) {
            case "gt" -> a > bound;
            case "ge" -> a >= bound;
            case "lt" -> a < bound;
            case "le" -> a <= bound;
            default -> a != bound;
          };
      if (!ok) {
        problems.add(at + ": expected " + op + " " + bound + ", was " + a);
      }
    } else if (expected.isObject()) {
      if (!(actual instanceof Map<?, ?> map)) {
        problems.add(at + ": expected an object, was " + actual);
        return;
      }
      for (Map.Entry<String, JsonNode> e : expected.properties()) {
        String where = at.isEmpty() ? e.getKey() : at + "." + e.getKey();
        if (!map.containsKey(e.getKey())) {
          problems.add(where + ": absent from the result (this client cannot see it)");
        } else {
          match(e.getValue(), map.get(e.getKey()), where, problems);
        }
      }
    } else if (expected.isArray()) {
      if (!(actual instanceof List<?> list) || list.size() != expected.size()) {
        problems.add(at + ": expected " + expected.size() + " entries, was " + actual);
        return;
      }
      for (int i = 0; i < list.size(); i++) {
        match(expected.get(i), list.get(i), at + "[" + i + "]", problems);
      }
    } else {
      Object want = literal(expected);
      if (!equal(want, actual)) {
        problems.add(at + ": expected " + want + ", was " + actual);
      }
    }
  }

  private static boolean equal(@Nullable Object want, @Nullable Object actual) {
    return want == null ? actual == null : want.equals(actual);
  }

  private @Nullable Object literal(JsonNode v) {
    if (v.isTextual() && v.asText().startsWith("$")) {
      return variable(v.asText());
    }
    if (v.isIntegralNumber()) {
      return v.asLong();
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isNull()) {
      return null;
    }
    return v.asText();
  }

  private long number(JsonNode v) {
    Object value = literal(v);
    if (!(value instanceof Long l)) {
      throw new AssertionError("a comparison needs a number, was " + value);
    }
    return l;
  }

  private Object variable(String ref) {
    Object value = variables.get(ref.substring(1));
    if (value == null) {
      throw new AssertionError("variable " + ref + " is not bound");
    }
    return value;
  }

  /** The variables bound so far, for a failure's message. */
  public Map<String, Object> variables() {
    return new LinkedHashMap<>(variables);
  }
}
