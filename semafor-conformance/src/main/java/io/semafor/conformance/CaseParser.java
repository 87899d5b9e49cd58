package io.semafor.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.semafor.ErrorCode;
import io.semafor.conformance.Step.AwaitStep;
import io.semafor.conformance.Step.Env;
import io.semafor.conformance.Step.EnvStep;
import io.semafor.conformance.Step.OpStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Reads a case file into a {@link ConformanceCase}, holding it to conformance/README.md: an unknown
 * key, step, operation, argument, result field, error code or tag, a variable used before it is
 * bound, a handle awaited that was never started, an actor stepping while it cannot (frozen,
 * killed), or tags that do not match the steps, is a {@link CaseFormatException} naming the file
 * and step. A runner that misreads a case must fail, never skip it.
 */
public final class CaseParser {
  /** How long an await waits for an outcome unless the step says otherwise. */
  public static final long DEFAULT_AWAIT_MS = 10_000;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z][a-z0-9_]*");
  private static final Pattern CASE_NAME = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
  private static final Set<String> CASE_KEYS =
      Set.of("name", "description", "source", "tags", "actors", "steps");
  private static final Set<String> ACTOR_KEYS = Set.of("session_ttl_ms");
  private static final Set<String> OP_STEP_KEYS =
      Set.of(
          "op", "actor", "args", "expect", "bind", "start", "within_ms", "note", "needs_session");
  private static final Set<String> AWAIT_STEP_KEYS =
      Set.of("await", "expect", "bind", "within_ms", "note");
  private static final Set<String> ENV_STEP_KEYS = Set.of("env", "actor", "ms", "note");
  private static final Set<String> INTEGER_ARGS =
      Set.of(
          "initial",
          "capacity",
          "max_per_session",
          "value",
          "amount",
          "timeout_ms",
          "slot",
          "ttl_ms",
          "permit_id");
  private static final Set<String> ERROR_CODES =
      Arrays.stream(ErrorCode.values()).map(Enum::name).collect(Collectors.toSet());
  private static final Set<String> MATCHERS = Set.of("gt", "ge", "lt", "le", "ne");

  /** The state of an actor's link, which decides what it may do next. */
  private enum Link {
    OPEN,
    CUT,
    DEAF,
    FROZEN,
    DEAD
  }

  private record Handle(String actor, Op op) {}

  private final Path file;
  private final Set<String> variables = new HashSet<>();
  private final Map<String, Handle> handles = new HashMap<>();
  private final Map<String, Link> links = new HashMap<>();
  private final Set<String> usedTags = new TreeSet<>();
  private int stepIndex;

  private CaseParser(Path file) {
    this.file = file;
  }

  /** Every {@code *.json} under {@code dir}, by name. */
  public static List<Path> caseFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
    }
  }

  /** Reads and checks one case file. */
  public static ConformanceCase parse(Path file) throws IOException {
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new CaseFormatException(file + ": not JSON: " + e.getMessage());
    }
    return new CaseParser(file).parseCase(root);
  }

  /** Checks a case given as text (for the parser's own tests); {@code file} names it. */
  public static ConformanceCase parse(Path file, String text) throws IOException {
    return new CaseParser(file).parseCase(JSON.readTree(text));
  }

  private ConformanceCase parseCase(JsonNode root) {
    if (!root.isObject()) {
      throw fail("a case is a JSON object");
    }
    onlyKeys(root, CASE_KEYS, "the case");
    String name = text(root, "name", "the case");
    String expected = file.getFileName().toString().replaceFirst("\\.json$", "");
    if (!CASE_NAME.matcher(name).matches() || !name.equals(expected)) {
      throw fail("name '" + name + "' must be lower-case-with-hyphens and the file's name");
    }
    String description = text(root, "description", "the case");
    String source = root.has("source") ? text(root, "source", "the case") : null;
    Set<String> tags = tags(required(root, "tags", "the case"));
    Map<String, ConformanceCase.Actor> actors = actors(required(root, "actors", "the case"));
    JsonNode stepsNode = required(root, "steps", "the case");
    if (!stepsNode.isArray() || stepsNode.isEmpty()) {
      throw fail("steps: a non-empty array");
    }
    List<Step> steps = new ArrayList<>();
    for (JsonNode s : stepsNode) {
      stepIndex++;
      steps.add(step(s, actors.keySet()));
    }
    stepIndex = 0;
    checkTags(tags);
    return new ConformanceCase(file, name, description, source, tags, actors, List.copyOf(steps));
  }

  private Set<String> tags(JsonNode node) {
    if (!node.isArray()) {
      throw fail("tags: an array of strings");
    }
    Set<String> tags = new TreeSet<>();
    for (JsonNode t : node) {
      if (!t.isTextual() || !ConformanceCase.KNOWN_TAGS.contains(t.asText())) {
        throw fail(
            "tags: unknown tag " + t + "; known: " + new TreeSet<>(ConformanceCase.KNOWN_TAGS));
      }
      tags.add(t.asText());
    }
    return tags;
  }

  private Map<String, ConformanceCase.Actor> actors(JsonNode node) {
    if (!node.isObject() || node.isEmpty()) {
      throw fail("actors: a non-empty object of actor names");
    }
    Map<String, ConformanceCase.Actor> actors = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String actor = e.getKey();
      if (!IDENTIFIER.matcher(actor).matches()) {
        throw fail("actor name '" + actor + "' must match " + IDENTIFIER);
      }
      if (!e.getValue().isObject()) {
        throw fail("actor " + actor + ": an object");
      }
      onlyKeys(e.getValue(), ACTOR_KEYS, "actor " + actor);
      Long ttl = null;
      if (e.getValue().has("session_ttl_ms")) {
        ttl = positive(e.getValue(), "session_ttl_ms", "actor " + actor);
        usedTags.add("session");
      }
      actors.put(actor, new ConformanceCase.Actor(actor, ttl));
      links.put(actor, Link.OPEN);
    }
    return actors;
  }

  private Step step(JsonNode s, Set<String> actors) {
    if (!s.isObject()) {
      throw fail("a step is a JSON object");
    }
    String note = s.has("note") ? text(s, "note", "the step") : null;
    int kinds = (s.has("op") ? 1 : 0) + (s.has("await") ? 1 : 0) + (s.has("env") ? 1 : 0);
    if (kinds != 1) {
      throw fail("a step has exactly one of 'op', 'await', 'env'; this one has " + fieldNames(s));
    }
    if (s.has("op")) {
      return opStep(s, note, actors);
    }
    if (s.has("await")) {
      return awaitStep(s, note);
    }
    return envStep(s, note, actors);
  }

  private OpStep opStep(JsonNode s, @Nullable String note, Set<String> actors) {
    onlyKeys(s, OP_STEP_KEYS, "an op step");
    String actor = actor(s, actors);
    String opName = text(s, "op", "the step");
    Op op = Op.byWireName(opName).orElseThrow(() -> fail("unknown op '" + opName + "'"));
    if (!op.tag().isEmpty()) {
      usedTags.add(op.tag());
    }
    ObjectNode args =
        s.has("args") ? objectNode(s.get("args"), "args") : JsonNodeFactory.instance.objectNode();
    checkArgs(op, args);
    Handle cancelled = op == Op.CANCEL ? handles.get(args.get("handle").asText()) : null;
    if (cancelled != null && !cancelled.actor().equals(actor)) {
      throw fail("cancel: handle " + args.get("handle") + " is another actor's");
    }
    String start = s.has("start") ? text(s, "start", "the step") : null;
    Link link = links.get(actor);
    if (link == Link.FROZEN || link == Link.DEAD) {
      throw fail("actor " + actor + " is " + link + ": it cannot act");
    }
    if (start == null && link != Link.OPEN) {
      throw fail(
          "actor " + actor + " is " + link + ": it can only start operations, not await them");
    }
    if (op == Op.CLOSE) {
      links.put(actor, Link.DEAD);
    }
    JsonNode expect = s.get("expect");
    Long withinMs = s.has("within_ms") ? positive(s, "within_ms", "the step") : null;
    if (start != null) {
      if (expect != null || withinMs != null || s.has("bind")) {
        throw fail("a started op has no 'expect', 'within_ms' or 'bind': await its handle");
      }
      if (!IDENTIFIER.matcher(start).matches() || handles.containsKey(start)) {
        throw fail("start: '" + start + "' must be a new handle name matching " + IDENTIFIER);
      }
      handles.put(start, new Handle(actor, op));
    } else {
      if (withinMs != null && !op.isRead()) {
        throw fail("within_ms polls a read (get, inspect); '" + opName + "' is not one");
      }
      if (expect != null) {
        checkExpect(op, expect, false);
      }
    }
    Map<String, String> bind = bind(s, op);
    boolean needsSession = false;
    if (s.has("needs_session")) {
      if (!s.get("needs_session").isBoolean() || !s.get("needs_session").asBoolean()) {
        throw fail("needs_session is true or absent");
      }
      if (start != null || !bind.isEmpty()) {
        throw fail(
            "a step that needs a session neither starts a handle nor binds: others use them");
      }
      needsSession = true;
    }
    return new OpStep(
        stepIndex, note, actor, op, args, expect, bind, start, withinMs, needsSession);
  }

  private AwaitStep awaitStep(JsonNode s, @Nullable String note) {
    onlyKeys(s, AWAIT_STEP_KEYS, "an await step");
    String name = text(s, "await", "the step");
    Handle handle = handles.get(name);
    if (handle == null) {
      throw fail("await: no open handle '" + name + "' (started earlier and not yet awaited)");
    }
    JsonNode expect = required(s, "expect", "an await step");
    Long pendingAfter = null;
    if (expect.has("pending_after_ms")) {
      if (expect.size() != 1 || s.has("bind") || s.has("within_ms")) {
        throw fail("expect: pending_after_ms stands alone (no other field, bind or within_ms)");
      }
      pendingAfter = positive(expect, "pending_after_ms", "expect");
      if (links.get(handle.actor()) == Link.DEAD) {
        throw fail("actor " + handle.actor() + " is dead: its handles cannot be awaited");
      }
    } else {
      if (links.get(handle.actor()) != Link.OPEN) {
        throw fail(
            "actor "
                + handle.actor()
                + " is "
                + links.get(handle.actor())
                + ": its handles can only be checked with pending_after_ms");
      }
      checkExpect(handle.op(), expect, true);
      handles.remove(name);
    }
    long within = s.has("within_ms") ? positive(s, "within_ms", "the step") : DEFAULT_AWAIT_MS;
    Map<String, String> bind = bind(s, handle.op());
    return new AwaitStep(stepIndex, note, name, expect, pendingAfter, bind, within);
  }

  private EnvStep envStep(JsonNode s, @Nullable String note, Set<String> actors) {
    onlyKeys(s, ENV_STEP_KEYS, "an env step");
    String kindName = text(s, "env", "the step");
    Env kind =
        Arrays.stream(Env.values())
            .filter(e -> e.wireName().equals(kindName))
            .findFirst()
            .orElseThrow(() -> fail("unknown env step '" + kindName + "'"));
    if (kind == Env.WAIT_MS) {
      if (s.has("actor")) {
        throw fail("wait_ms has no actor");
      }
      return new EnvStep(stepIndex, note, kind, null, positive(s, "ms", "wait_ms"));
    }
    if (s.has("ms")) {
      throw fail(kindName + " has no 'ms': use a wait_ms step, then the step that ends it");
    }
    String actor = actor(s, actors);
    Link from = links.get(actor);
    Link to =
        switch (kind) {
          case CUT -> from == Link.OPEN || from == Link.DEAF ? Link.CUT : null;
          case RESTORE -> from == Link.CUT ? Link.OPEN : null;
          case DEAFEN -> from == Link.OPEN ? Link.DEAF : null;
          case FREEZE -> from == Link.OPEN || from == Link.DEAF ? Link.FROZEN : null;
          case THAW -> from == Link.DEAF || from == Link.FROZEN ? Link.OPEN : null;
          case KILL -> from != Link.DEAD ? Link.DEAD : null;
          case WAIT_MS -> throw new AssertionError();
        };
    if (to == null) {
      throw fail(kindName + " of actor " + actor + " whose link is " + from);
    }
    links.put(actor, to);
    if (!kind.tag().isEmpty()) {
      usedTags.add(kind.tag());
    }
    return new EnvStep(stepIndex, note, kind, actor, 0);
  }

  private String actor(JsonNode s, Set<String> actors) {
    String actor = text(s, "actor", "the step");
    if (!actors.contains(actor)) {
      throw fail("actor '" + actor + "' is not one of the case's actors " + actors);
    }
    return actor;
  }

  private void checkArgs(Op op, ObjectNode args) {
    for (String required : op.required()) {
      if (!args.has(required)) {
        throw fail(op.wireName() + ": missing argument '" + required + "'");
      }
    }
    for (Map.Entry<String, JsonNode> e : args.properties()) {
      String arg = e.getKey();
      JsonNode v = e.getValue();
      if (!op.allows(arg)) {
        throw fail(op.wireName() + ": unknown argument '" + arg + "'");
      }
      if (INTEGER_ARGS.contains(arg)) {
        integerOrVariable(v, op.wireName() + "." + arg);
      } else if (arg.equals("owned")) {
        bool(v, op.wireName() + ".owned");
      } else if (arg.equals("ops")) {
        semopOps(v);
      } else if (arg.equals("handle")) {
        if (!v.isTextual() || !handles.containsKey(v.asText())) {
          throw fail("cancel: handle " + v + " is not an open handle");
        }
      } else if (arg.equals("policy")) {
        if (!v.isTextual() || !Set.of("FIFO", "BARGING").contains(v.asText())) {
          throw fail("create.policy: FIFO or BARGING, was " + v);
        }
      } else if (!v.isTextual()) { // name, list
        throw fail(op.wireName() + "." + arg + ": a string, was " + v);
      }
    }
  }

  private void semopOps(JsonNode v) {
    if (!v.isArray()) {
      throw fail("semop.ops: an array");
    }
    for (JsonNode o : v) {
      if (!o.isObject()) {
        throw fail("semop.ops: each op is an object");
      }
      onlyKeys(o, Op.SEMOP_OP_FIELDS, "a semop op");
      text(o, "name", "a semop op");
      integerOrVariable(required(o, "delta", "a semop op"), "semop.ops[].delta");
      if (o.has("no_wait")) {
        bool(o.get("no_wait"), "semop.ops[].no_wait");
      }
      if (o.has("owned")) {
        bool(o.get("owned"), "semop.ops[].owned");
        if (o.get("owned").asBoolean()) {
          usedTags.add("session");
        }
      }
    }
  }

  /** An expectation for {@code op}'s outcome (after an await if {@code awaited}). */
  private void checkExpect(Op op, JsonNode expect, boolean awaited) {
    if (!expect.isObject()) {
      throw fail("expect: an object");
    }
    if (expect.has("error")) {
      onlyKeys(expect, Set.of("error", "argument"), "an error expectation");
      if (!expect.get("error").isTextual() || !ERROR_CODES.contains(expect.get("error").asText())) {
        throw fail(
            "expect.error: one of " + new TreeSet<>(ERROR_CODES) + ", was " + expect.get("error"));
      }
      if (expect.has("argument") && !expect.get("argument").isTextual()) {
        throw fail("expect.argument: a string");
      }
      return;
    }
    if (expect.has("argument")) {
      throw fail("expect.argument goes with expect.error");
    }
    if (expect.has("cancelled")) {
      if (!awaited
          || expect.size() != 1
          || !expect.get("cancelled").equals(JSON.getNodeFactory().booleanNode(true))) {
        throw fail("expect: {\"cancelled\": true} stands alone, on an await");
      }
      return;
    }
    for (Map.Entry<String, JsonNode> e : expect.properties()) {
      if (!op.resultFields().contains(e.getKey())) {
        throw fail(
            "expect: '"
                + e.getKey()
                + "' is not a result field of "
                + op.wireName()
                + " "
                + op.resultFields());
      }
      checkValue(e.getValue(), "expect." + e.getKey());
    }
  }

  /** A literal, a bound variable, a matcher, or a list or object of those. */
  private void checkValue(JsonNode v, String where) {
    if (v.isTextual() && v.asText().startsWith("$")) {
      variable(v.asText(), where);
    } else if (v.isArray()) {
      for (JsonNode e : v) {
        checkValue(e, where + "[]");
      }
    } else if (v.isObject()) {
      boolean matcher = v.size() == 1 && MATCHERS.contains(v.fieldNames().next());
      for (Map.Entry<String, JsonNode> e : v.properties()) {
        if (matcher) {
          integerOrVariable(e.getValue(), where + "." + e.getKey());
        } else {
          checkValue(e.getValue(), where + "." + e.getKey());
        }
      }
    } else if (!v.isIntegralNumber() && !v.isBoolean() && !v.isTextual() && !v.isNull()) {
      throw fail(where + ": integers, booleans, strings, null, lists and objects only, was " + v);
    }
  }

  private Map<String, String> bind(JsonNode s, Op op) {
    if (!s.has("bind")) {
      return Map.of();
    }
    JsonNode b = objectNode(s.get("bind"), "bind");
    Map<String, String> bind = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : b.properties()) {
      if (!IDENTIFIER.matcher(e.getKey()).matches()) {
        throw fail("bind: variable name '" + e.getKey() + "' must match " + IDENTIFIER);
      }
      if (!e.getValue().isTextual() || !op.resultFields().contains(e.getValue().asText())) {
        throw fail(
            "bind."
                + e.getKey()
                + ": "
                + e.getValue()
                + " is not a result field of "
                + op.wireName());
      }
      if (!variables.add(e.getKey())) {
        throw fail("bind: variable '" + e.getKey() + "' is bound twice");
      }
      bind.put(e.getKey(), e.getValue().asText());
    }
    return Map.copyOf(bind);
  }

  private void checkTags(Set<String> declared) {
    Set<String> requirements = new TreeSet<>(declared);
    requirements.remove(ConformanceCase.CLUSTER_SAFE);
    if (!requirements.equals(usedTags)) {
      throw fail(
          "tags "
              + requirements
              + " (without cluster-safe) must be exactly what the steps use: "
              + usedTags);
    }
    if (declared.contains(ConformanceCase.CLUSTER_SAFE)) {
      for (String env : List.of("cut", "deafen", "freeze", "kill")) {
        if (usedTags.contains(env)) {
          throw fail("a cluster-safe case has no " + env + " step (the runner has no proxy there)");
        }
      }
    }
  }

  private void integerOrVariable(JsonNode v, String where) {
    if (v.isTextual() && v.asText().startsWith("$")) {
      variable(v.asText(), where);
    } else if (!v.isIntegralNumber()) {
      throw fail(where + ": an integer or a $variable, was " + v);
    }
  }

  private void variable(String ref, String where) {
    if (!variables.contains(ref.substring(1))) {
      throw fail(where + ": variable " + ref + " is not bound by an earlier step");
    }
  }

  private void bool(JsonNode v, String where) {
    if (!v.isBoolean()) {
      throw fail(where + ": true or false, was " + v);
    }
  }

  private ObjectNode objectNode(JsonNode v, String where) {
    if (!(v instanceof ObjectNode o)) {
      throw fail(where + ": an object");
    }
    return o;
  }

  private long positive(JsonNode node, String key, String where) {
    JsonNode v = required(node, key, where);
    if (!v.isIntegralNumber() || v.asLong() <= 0) {
      throw fail(where + ": " + key + " must be a positive integer, was " + v);
    }
    return v.asLong();
  }

  private String text(JsonNode node, String key, String where) {
    JsonNode v = required(node, key, where);
    if (!v.isTextual()) {
      throw fail(where + ": " + key + " must be a string, was " + v);
    }
    return v.asText();
  }

  private JsonNode required(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null) {
      throw fail(where + ": missing '" + key + "'");
    }
    return v;
  }

  private void onlyKeys(JsonNode node, Set<String> allowed, String where) {
    for (String key : fieldNames(node)) {
      if (!allowed.contains(key)) {
        throw fail(where + ": unknown field '" + key + "'; allowed: " + new TreeSet<>(allowed));
      }
    }
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private CaseFormatException fail(String message) {
    return new CaseFormatException(
        file.getFileName() + (stepIndex > 0 ? ", step " + stepIndex : "") + ": " + message);
  }

  /** A case file that does not follow the format: the runner fails on it. */
  public static final class CaseFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    CaseFormatException(String message) {
      super(message);
    }
  }
}
