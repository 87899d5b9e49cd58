package io.semafor.client.internal.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.semafor.client.internal.session.SessionEffect.Closed;
import io.semafor.client.internal.session.SessionEffect.Completed;
import io.semafor.client.internal.session.SessionEffect.Dial;
import io.semafor.client.internal.session.SessionEffect.Failed;
import io.semafor.client.internal.session.SessionEffect.Hangup;
import io.semafor.client.internal.session.SessionEffect.HelloRefused;
import io.semafor.client.internal.session.SessionEffect.Opened;
import io.semafor.client.internal.session.SessionEffect.ReadCompleted;
import io.semafor.client.internal.session.SessionEffect.ReadFailed;
import io.semafor.client.internal.session.SessionEffect.Send;
import io.semafor.client.internal.session.SessionEffect.SessionLost;
import io.semafor.client.internal.session.SessionEffect.WatchEnded;
import io.semafor.client.internal.session.SessionEffect.WatchEventReceived;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.WatchEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Plays a protocol trace of {@code conformance/traces/client} (docs/protocol.md §9) against a fresh
 * {@link ClientSession}: the same inputs at the same times must return the same values, produce the
 * same effects in the same order and leave the same next deadline. Free-text reasons and messages
 * are not compared; frames are compared as messages, parsed from text format.
 */
final class TracePlayer {
  static final String FORMAT = "semafor-client-trace/1";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long START = 1_000_000_000_000L;
  private static final Set<String> TRACE_FIELDS =
      Set.of("format", "name", "description", "source", "config", "steps");
  private static final List<String> INPUTS =
      List.of(
          "start",
          "connected",
          "disconnected",
          "received",
          "tick",
          "submit",
          "read",
          "cancel",
          "watch",
          "unwatch",
          "close",
          "confirm_acknowledgements",
          "nudge",
          "leave_unacknowledged");
  private static final Set<String> STEP_FIELDS =
      Set.of(
          "at_ns",
          "conn",
          "confirm_delivery",
          "session_epoch",
          "returns",
          "effects",
          "deadline_ns",
          "note");

  private TracePlayer() {}

  /** The trace files of a directory, by name. */
  static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> all = Files.list(dir)) {
      return all.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
  }

  static JsonNode read(Path file) throws IOException {
    return JSON.readTree(file.toFile());
  }

  /**
   * Plays {@code trace}.
   *
   * @throws AssertionError at the first difference, naming the step
   * @throws IllegalArgumentException if the trace is not in the format
   */
  static void play(JsonNode trace) {
    if (!FORMAT.equals(trace.path("format").asText())) {
      throw new IllegalArgumentException("format: expected " + FORMAT);
    }
    fieldsIn(trace, TRACE_FIELDS, "the trace");
    String name = trace.path("name").asText();
    ClientSession m = new ClientSession(config(trace.path("config")));
    int i = 0;
    for (JsonNode step : trace.path("steps")) {
      String where = name + " step " + i + " (" + inputOf(step, i) + " at " + step.path("at_ns");
      Object returned = step(m, step, START + step.path("at_ns").asLong());
      where += " ns)";
      Object want = expectedReturn(step.get("returns"));
      if (!java.util.Objects.equals(returned, want)) {
        throw new AssertionError(where + ": returned " + returned + ", the trace says " + want);
      }
      List<Map<String, Object>> got = new ArrayList<>();
      for (SessionEffect e : m.take()) {
        got.add(effect(e));
      }
      List<Map<String, Object>> expected = new ArrayList<>();
      for (JsonNode e : step.path("effects")) {
        expected.add(expected(e));
      }
      if (!got.equals(expected)) {
        throw new AssertionError(where + ": effects\n  got  " + got + "\n  want " + expected);
      }
      OptionalLong deadline = m.nextDeadline();
      JsonNode wantDeadline = step.path("deadline_ns");
      Long gotRelative = deadline.isPresent() ? deadline.getAsLong() - START : null;
      Long wantRelative = wantDeadline.isNull() ? null : wantDeadline.asLong();
      if (!java.util.Objects.equals(gotRelative, wantRelative)) {
        throw new AssertionError(
            where + ": next deadline " + gotRelative + ", the trace says " + wantRelative);
      }
      i++;
    }
  }

  private static String inputOf(JsonNode step, int i) {
    fieldsIn(step, union(STEP_FIELDS, INPUTS), "step " + i);
    List<String> inputs = INPUTS.stream().filter(step::has).toList();
    if (inputs.size() != 1) {
      throw new IllegalArgumentException("step " + i + ": one input of " + INPUTS + " expected");
    }
    return inputs.get(0);
  }

  private static Set<String> union(Set<String> a, List<String> b) {
    var all = new java.util.HashSet<>(a);
    all.addAll(b);
    return all;
  }

  private static void fieldsIn(JsonNode node, Set<String> allowed, String what) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String field = it.next();
      if (!allowed.contains(field)) {
        throw new IllegalArgumentException(what + ": unknown field " + field);
      }
    }
  }

  private static SessionConfig config(JsonNode c) {
    Set<String> known =
        Set.of(
            "addresses",
            "session_ttl_ns",
            "client_name",
            "client_host",
            "client_pid",
            "token",
            "ack_delay_ns",
            "probe_after_ns",
            "answer_deadline_ns",
            "backoff_min_ns",
            "backoff_max_ns",
            "give_up_after_ns",
            "avoid_silent_ns");
    fieldsIn(c, known, "config");
    List<String> addresses = new ArrayList<>();
    c.path("addresses").forEach(a -> addresses.add(a.asText()));
    SessionConfig d = SessionConfig.defaults(addresses);
    return new SessionConfig(
        addresses,
        c.path("session_ttl_ns").asLong(d.sessionTtlNanos()),
        c.path("client_name").asText(d.clientName()),
        c.path("client_host").asText(d.clientHost()),
        c.path("client_pid").asLong(d.clientPid()),
        c.path("token").asText(d.token()),
        c.path("ack_delay_ns").asLong(d.ackDelayNanos()),
        c.path("probe_after_ns").asLong(d.probeAfterNanos()),
        c.path("answer_deadline_ns").asLong(d.answerDeadlineNanos()),
        c.path("backoff_min_ns").asLong(d.backoffMinNanos()),
        c.path("backoff_max_ns").asLong(d.backoffMaxNanos()),
        c.path("give_up_after_ns").asLong(d.giveUpAfterNanos()),
        c.path("avoid_silent_ns").asLong(d.avoidSilentNanos()),
        c.path("stable_after_ns").asLong(d.stableAfterNanos()));
  }

  private static @org.jspecify.annotations.Nullable Object step(
      ClientSession m, JsonNode step, long now) {
    String input = INPUTS.stream().filter(step::has).findFirst().orElseThrow();
    JsonNode arg = step.get(input);
    switch (input) {
      case "start" -> m.start(now);
      case "connected" -> m.connected(now, arg.asLong());
      case "disconnected" -> m.disconnected(now, arg.asLong());
      case "received" ->
          m.received(
              parse(ServerFrame.getDefaultInstance(), arg.asText()),
              now,
              step.path("conn").asLong());
      case "tick" -> m.tick(now);
      case "submit" -> {
        JsonNode epoch = step.get("session_epoch");
        return m.submit(
            parse(Request.getDefaultInstance(), arg.asText()),
            now,
            step.path("confirm_delivery").asBoolean(false),
            epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch.asLong()));
      }
      case "read" -> {
        return m.read(parse(Read.getDefaultInstance(), arg.asText()), now);
      }
      case "cancel" -> {
        return m.cancel(arg.asLong(), now);
      }
      case "watch" -> {
        return m.watch(parse(Watch.getDefaultInstance(), arg.asText()), now);
      }
      case "unwatch" -> m.unwatch(arg.asLong(), now);
      case "close" -> m.close(now);
      case "confirm_acknowledgements" -> {
        return m.confirmAcknowledgements(now);
      }
      case "nudge" -> m.nudge(now);
      case "leave_unacknowledged" -> m.leaveUnacknowledged(arg.asLong(), now);
      default -> throw new IllegalArgumentException(input);
    }
    return null;
  }

  private static @org.jspecify.annotations.Nullable Object expectedReturn(
      @org.jspecify.annotations.Nullable JsonNode returns) {
    if (returns == null || returns.isNull()) {
      return null;
    }
    return returns.isBoolean() ? (Object) returns.asBoolean() : (Object) returns.asLong();
  }

  @SuppressWarnings("unchecked")
  private static <M extends Message> M parse(M prototype, String text) {
    Message.Builder builder = prototype.newBuilderForType();
    try {
      TextFormat.merge(text, builder);
    } catch (TextFormat.ParseException e) {
      throw new IllegalArgumentException(
          "not a " + builder.getDescriptorForType().getName() + " in text format: " + text, e);
    }
    return (M) builder.build();
  }

  /** An effect as the trace's form, with frames as messages. */
  private static Map<String, Object> effect(SessionEffect e) {
    Map<String, Object> v = new LinkedHashMap<>();
    String kind;
    if (e instanceof Dial d) {
      kind = "dial";
      v.put("conn", d.conn());
      v.put("address", d.address());
    } else if (e instanceof Send s) {
      return Map.of("send", s.frame());
    } else if (e instanceof Hangup h) {
      kind = "hangup";
      v.put("conn", h.conn());
    } else if (e instanceof Opened o) {
      kind = "opened";
      v.put("session_id", o.sessionId());
      v.put("resumed", o.resumed());
      v.put("ttl_ns", o.ttlNanos());
      v.put("principal", o.principal());
      v.put("epoch", o.epoch());
    } else if (e instanceof HelloRefused r) {
      kind = "hello_refused";
      error(v, r.error());
    } else if (e instanceof Completed c) {
      kind = "completed";
      v.put("request_id", c.requestId());
      v.put("response", c.response());
    } else if (e instanceof Failed f) {
      kind = "failed";
      v.put("request_id", f.requestId());
      error(v, f.error());
    } else if (e instanceof ReadCompleted r) {
      kind = "read_completed";
      v.put("read_id", r.readId());
      v.put("response", r.response());
    } else if (e instanceof ReadFailed r) {
      kind = "read_failed";
      v.put("read_id", r.readId());
      error(v, r.error());
    } else if (e instanceof WatchEventReceived w) {
      kind = "watch_event";
      v.put("watch_id", w.watchId());
      v.put("event", w.event());
    } else if (e instanceof WatchEnded w) {
      kind = "watch_ended";
      v.put("watch_id", w.watchId());
      error(v, w.error());
    } else if (e instanceof SessionLost l) {
      kind = "session_lost";
      error(v, l.error());
    } else if (e instanceof SessionEffect.AcknowledgementsConfirmed c) {
      kind = "acknowledgements_confirmed";
      v.put("token", c.token());
    } else if (e instanceof Closed) {
      kind = "closed";
    } else {
      throw new AssertionError("an effect a trace cannot write: " + e);
    }
    return Map.of(kind, v);
  }

  private static void error(Map<String, Object> v, SessionError error) {
    v.put("code", error.code().name());
    v.put("outcome_known", error.outcomeKnown());
    if (!error.leader().isEmpty()) {
      v.put("leader", error.leader());
    }
  }

  /** An effect of the trace, with its frames parsed into messages and its numbers as longs. */
  private static Map<String, Object> expected(JsonNode e) {
    String kind = e.fieldNames().next();
    JsonNode value = e.get(kind);
    if (kind.equals("send")) {
      return Map.of(kind, parse(ClientFrame.getDefaultInstance(), value.asText()));
    }
    Map<String, Object> v = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : value.properties()) {
      JsonNode f = field.getValue();
      Object o;
      if (field.getKey().equals("response")) {
        o =
            kind.equals("read_completed")
                ? parse(ReadResponse.getDefaultInstance(), f.asText())
                : parse(Response.getDefaultInstance(), f.asText());
      } else if (field.getKey().equals("event")) {
        o = parse(WatchEvent.getDefaultInstance(), f.asText());
      } else if (f.isBoolean()) {
        o = f.asBoolean();
      } else if (f.isNumber()) {
        o = f.asLong();
      } else {
        o = f.asText();
      }
      v.put(field.getKey(), o);
    }
    return Map.of(kind, v);
  }
}
