package io.semafor.it.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.semafor.client.internal.session.SessionEffect;
import io.semafor.client.internal.session.SessionError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An exchange between a client's session machine and a server's, written down as it happens: every
 * input each side was given, on one timeline, with what that side did in answer (docs/protocol.md
 * §9, {@code semafor-exchange-trace/1}). Either side replays it alone: given its inputs at their
 * times, it must do the same ({@link ExchangeTraceTest}). Frames are in protobuf text format.
 */
final class ExchangeLog {
  static final String FORMAT = "semafor-exchange-trace/1";
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final TextFormat.Printer TEXT = TextFormat.printer().emittingSingleLine(true);

  private final ObjectNode root = JSON.createObjectNode();
  private final ArrayNode events;
  private @Nullable ArrayNode output;

  ExchangeLog(
      String name, String description, long start, List<String> addresses, long giveUpAfter) {
    root.put("format", FORMAT);
    root.put("name", name);
    root.put("description", description);
    root.put("start_ns", start);
    ObjectNode client = root.putObject("client");
    addresses.forEach(client.putArray("addresses")::add);
    client.put("give_up_after_ns", giveUpAfter);
    root.put("server_seed", LinkedMachines.SERVER_SEED);
    events = root.putArray("events");
  }

  static String text(Message m) {
    return TEXT.printToString(m);
  }

  /** The client was given an input at {@code at}; what it does next is its output. */
  ObjectNode client(long at, String input) {
    return event(at, "client", input);
  }

  /** The server was given an input at {@code at}; what it writes next is its output. */
  ObjectNode server(long at, String input) {
    return event(at, "server", input);
  }

  private ObjectNode event(long at, String side, String input) {
    ObjectNode e = events.addObject();
    e.put("at_ns", at);
    e.put("side", side);
    e.put("input", input);
    output = e.putArray("output");
    return e;
  }

  /** What the client did, in the trace's words. */
  void clientDid(SessionEffect effect) {
    ArrayNode out = current();
    ObjectNode o = out.addObject();
    describe(effect, o);
  }

  /** What the server wrote on connection {@code conn}: a frame, or null for its close. */
  void serverWrote(long conn, @Nullable Message frame) {
    ObjectNode o = current().addObject();
    o.put("conn", conn);
    if (frame == null) {
      o.put("closed", true);
    } else {
      o.put("frame", text(frame));
    }
  }

  private ArrayNode current() {
    ArrayNode out = output;
    if (out == null) {
      throw new IllegalStateException("an output before any input");
    }
    return out;
  }

  /**
   * An effect of the client's machine as the trace writes it: spelled as a client trace spells it
   * (docs/protocol.md §9), so a client that plays those plays these with the same code.
   */
  static void describe(SessionEffect effect, ObjectNode o) {
    if (effect instanceof SessionEffect.Send s) {
      o.put("send", text(s.frame()));
    } else if (effect instanceof SessionEffect.Dial d) {
      o.putObject("dial").put("conn", d.conn()).put("address", d.address());
    } else if (effect instanceof SessionEffect.Hangup h) {
      o.putObject("hangup").put("conn", h.conn());
    } else if (effect instanceof SessionEffect.Opened op) {
      o.putObject("opened")
          .put("session_id", op.sessionId())
          .put("resumed", op.resumed())
          .put("ttl_ns", op.ttlNanos())
          .put("principal", op.principal())
          .put("epoch", op.epoch());
    } else if (effect instanceof SessionEffect.Completed c) {
      o.putObject("completed").put("request_id", c.requestId()).put("response", text(c.response()));
    } else if (effect instanceof SessionEffect.Failed f) {
      error(o.putObject("failed").put("request_id", f.requestId()), f.error());
    } else if (effect instanceof SessionEffect.SessionLost l) {
      error(o.putObject("session_lost"), l.error());
    } else if (effect instanceof SessionEffect.AcknowledgementsConfirmed c) {
      o.putObject("acknowledgements_confirmed").put("token", c.token());
    } else {
      throw new AssertionError("an effect an exchange trace does not write: " + effect);
    }
  }

  private static void error(ObjectNode o, SessionError error) {
    o.put("code", error.code().name());
    o.put("outcome_known", error.outcomeKnown());
    if (!error.leader().isEmpty()) {
      o.put("leader", error.leader());
    }
  }

  JsonNode json() {
    return root;
  }

  void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve(root.get("name").asText() + ".json"), JSON.writeValueAsString(root) + "\n");
  }
}
