package io.semafor.client.internal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The Java session machine plays every protocol trace of {@code conformance/traces/client} exactly
 * (docs/protocol.md §9), as the Python client's machine does: one specified machine, two
 * implementations.
 */
class ClientSessionTraceTest {
  static final Path TRACES =
      Path.of(System.getProperty("semafor.conformance.dir", "../conformance"))
          .resolve("traces/client");

  @TestFactory
  Stream<DynamicTest> theMachinePlaysEveryTrace() throws IOException {
    return TracePlayer.files(TRACES).stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    file.getFileName().toString(), () -> TracePlayer.play(TracePlayer.read(file))));
  }

  @Test
  void thereAreTracesToPlay() throws IOException {
    assertThat(TracePlayer.files(TRACES)).hasSizeGreaterThanOrEqualTo(40);
  }

  @Test
  void aTraceWhoseEffectsDifferFailsNamingTheStep() throws IOException {
    List<Path> files = TracePlayer.files(TRACES);
    JsonNode trace = TracePlayer.read(files.get(0));
    ArrayNode effects = (ArrayNode) trace.path("steps").get(0).get("effects");
    effects.removeAll();
    ObjectNode dial = effects.addObject().putObject("dial");
    dial.put("conn", 1).put("address", "elsewhere:1");
    assertThatThrownBy(() -> TracePlayer.play(trace))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("step 0");
  }
}
