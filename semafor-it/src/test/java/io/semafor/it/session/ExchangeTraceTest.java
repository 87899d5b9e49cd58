package io.semafor.it.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.semafor.client.internal.session.ClientSession;
import io.semafor.client.internal.session.SessionEffect;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays each side of every exchange trace of {@code conformance/traces/exchange}
 * (docs/protocol.md §9) alone against today's machine: the client's machine ({@link ClientSession})
 * given the client's inputs at their times must do what the trace says it did, and the server's
 * ({@link io.semafor.server.session.ServerSession} with the core, {@link MachineNode}) given the
 * server's must write the frames the trace says it wrote. So one recorded exchange tests both
 * machines, and a change to either that the other would see shows here.
 */
class ExchangeTraceTest {
  private static final Path DIR =
      Path.of(System.getProperty("semafor.conformance.dir", "../conformance"))
          .resolve("traces/exchange");

  @TestFactory
  Stream<DynamicTest> eachSideOfEachExchangeDoesWhatItDid() throws IOException {
    List<Path> files;
    try (Stream<Path> listed = Files.list(DIR)) {
      files = listed.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).as("exchange traces in %s", DIR).isNotEmpty();
    List<DynamicTest> tests = new ArrayList<>();
    for (Path file : files) {
      JsonNode trace = ExchangeLog.JSON.readTree(file.toFile());
      assertThat(trace.get("format").asText()).isEqualTo(ExchangeLog.FORMAT);
      String name = trace.get("name").asText();
      tests.add(DynamicTest.dynamicTest("client: " + name, () -> replayClient(trace)));
      tests.add(DynamicTest.dynamicTest("server: " + name, () -> replayServer(trace)));
    }
    return tests.stream();
  }

  private static void replayClient(JsonNode trace) {
    List<String> addresses = new ArrayList<>();
    trace.get("client").get("addresses").forEach(a -> addresses.add(a.asText()));
    ClientSession client =
        new ClientSession(
            LinkedMachines.clientConfig(
                addresses, trace.get("client").get("give_up_after_ns").asLong()));
    int step = 0;
    for (JsonNode e : trace.get("events")) {
      step++;
      if (!e.get("side").asText().equals("client")) {
        continue;
      }
      long at = e.get("at_ns").asLong();
      switch (e.get("input").asText()) {
        case "submit" ->
            client.submit(
                parse(Request.getDefaultInstance(), e.get("request").asText()),
                at,
                false,
                OptionalLong.empty());
        case "received" ->
            client.received(
                parse(ServerFrame.getDefaultInstance(), e.get("frame").asText()),
                at,
                e.get("conn").asLong());
        case "connected" -> client.connected(at, e.get("conn").asLong());
        case "disconnected" -> client.disconnected(at, e.get("conn").asLong());
        case "tick" -> client.tick(at);
        default -> throw new AssertionError("unknown client input " + e);
      }
      ArrayNode did = ExchangeLog.JSON.createArrayNode();
      for (SessionEffect effect : client.take()) {
        ExchangeLog.describe(effect, did.addObject());
      }
      // compared as text: a number read back from the file is an int node, one made here a long
      assertThat(did.toString())
          .as("step %d of %s: %s", step, trace.get("name"), e)
          .isEqualTo(e.get("output").toString());
    }
  }

  private static void replayServer(JsonNode trace) {
    MachineNode node = LinkedMachines.preparedNode();
    Map<Long, MachineNode.Connection> connections = new HashMap<>();
    Map<Long, Integer> seen = new HashMap<>();
    int step = 0;
    for (JsonNode e : trace.get("events")) {
      step++;
      if (!e.get("side").asText().equals("server")) {
        continue;
      }
      long at = e.get("at_ns").asLong();
      long conn = e.get("conn").asLong();
      switch (e.get("input").asText()) {
        case "connected" -> connections.put(conn, node.connect(at));
        case "received" ->
            connections
                .get(conn)
                .receive(parse(ClientFrame.getDefaultInstance(), e.get("frame").asText()), at);
        case "disconnected" -> connections.get(conn).disconnect();
        case "tick" -> connections.get(conn).tick(at);
        default -> throw new AssertionError("unknown server input " + e);
      }
      ArrayNode wrote = ExchangeLog.JSON.createArrayNode();
      for (Map.Entry<Long, MachineNode.Connection> c : connections.entrySet()) {
        List<Object> written = c.getValue().written;
        for (int i = seen.getOrDefault(c.getKey(), 0); i < written.size(); i++) {
          ObjectNode o = wrote.addObject();
          o.put("conn", c.getKey());
          Object w = written.get(i);
          if (w == MachineNode.CLOSED) {
            o.put("closed", true);
          } else {
            o.put("frame", ExchangeLog.text((ServerFrame) w));
          }
        }
        seen.put(c.getKey(), written.size());
      }
      assertThat(sorted(wrote))
          .as("step %d of %s: %s", step, trace.get("name"), e)
          .isEqualTo(sorted((ArrayNode) e.get("output")));
    }
  }

  /**
   * The writes of one step by connection, in order within each (the trace lists them so), as text:
   * a number read back from the file is an int node, one made here a long.
   */
  private static List<String> sorted(ArrayNode writes) {
    List<JsonNode> out = new ArrayList<>();
    writes.forEach(out::add);
    out.sort(java.util.Comparator.comparingLong(n -> n.get("conn").asLong()));
    return out.stream().map(JsonNode::toString).toList();
  }

  @SuppressWarnings("unchecked")
  private static <M extends Message> M parse(M prototype, String text) {
    Message.Builder builder = prototype.newBuilderForType();
    try {
      TextFormat.merge(text, builder);
    } catch (TextFormat.ParseException ex) {
      throw new IllegalArgumentException("not a frame in text format: " + text, ex);
    }
    return (M) builder.build();
  }
}
