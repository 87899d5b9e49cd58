package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The server's logging as {@link Logging#configure} sets it: dated text or JSON lines on stderr,
 * java.util.logging included.
 */
class LoggingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrintStream stderr = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @AfterEach
  void restore() throws Exception {
    System.setErr(stderr);
    // back to this module's test configuration for the tests that run after in this JVM
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
  }

  /** Configures {@code format}, logs one line through SLF4J and one through JUL, returns them. */
  private List<String> logged(Logging.Format format) {
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    assertThat(Logging.configure(format)).isTrue();
    LoggerFactory.getLogger("io.semafor.server.LoggingTest").info("hello {}", "world");
    java.util.logging.Logger.getLogger("io.grpc.Example").warning("from JUL");
    // below the configured level: JUL must not pass it on
    java.util.logging.Logger.getLogger("io.grpc.Example").fine("not shown");
    System.err.flush();
    return captured.toString(StandardCharsets.UTF_8).lines().toList();
  }

  @Test
  void jsonLinesParseAndCarryTimestampLevelLoggerAndMessage() throws Exception {
    List<String> lines = logged(Logging.Format.JSON);
    assertThat(lines).hasSize(2);
    JsonNode hello = JSON.readTree(lines.get(0));
    assertThat(hello.get("timestamp").asLong())
        .isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(60_000L));
    assertThat(hello.get("level").asText()).isEqualTo("INFO");
    assertThat(hello.get("loggerName").asText()).isEqualTo("io.semafor.server.LoggingTest");
    assertThat(hello.get("message").asText()).isEqualTo("hello {}");
    assertThat(hello.get("formattedMessage").asText()).isEqualTo("hello world");
    JsonNode jul = JSON.readTree(lines.get(1));
    assertThat(jul.get("level").asText()).isEqualTo("WARN");
    assertThat(jul.get("loggerName").asText()).isEqualTo("io.grpc.Example");
    assertThat(jul.get("formattedMessage").asText()).isEqualTo("from JUL");
  }

  @Test
  void textLinesStartWithAnIsoDateWithMillisecondsAndZone() {
    List<String> lines = logged(Logging.Format.TEXT);
    assertThat(lines).hasSize(2);
    for (String line : lines) {
      String stamp = line.substring(0, line.indexOf(' '));
      assertThat(stamp)
          .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)");
      assertThat(OffsetDateTime.parse(stamp)).isNotNull();
    }
    assertThat(lines.get(0)).contains("INFO").endsWith("hello world");
    assertThat(lines.get(1)).contains("WARN").contains("io.grpc.Example").endsWith("from JUL");
  }
}
