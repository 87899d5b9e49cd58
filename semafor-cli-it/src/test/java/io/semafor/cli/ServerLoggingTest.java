package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.cli.CliProcess.Finished;
import io.semafor.embedded.EmbeddedSemafor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code semafor server --log-format text|json}, and the client commands' quiet logging. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServerLoggingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private @Nullable Process server;

  @AfterEach
  void stop() throws InterruptedException {
    Process p = server;
    if (p != null) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Starts a server logging in {@code format} and returns its log lines once it logged its start.
   */
  private List<String> startedLog(Path dir, String format) throws Exception {
    Path log = dir.resolve("server.log");
    server =
        CliProcess.startRaw(
            log,
            "server",
            "--port",
            "0",
            "--http-port",
            "-1",
            "--admin-port",
            "-1",
            "--log-format",
            format);
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> Files.readAllLines(log, StandardCharsets.UTF_8),
            lines -> lines.stream().anyMatch(l -> l.contains("semafor listening on")));
  }

  @Test
  void jsonLogLinesParseWithTimestampLevelLoggerAndMessage(@TempDir Path dir) throws Exception {
    List<String> lines = startedLog(dir, "json");
    String started =
        lines.stream()
            .filter(l -> l.startsWith("{") && l.contains("semafor listening on"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no JSON line for the start in " + lines));
    JsonNode line = JSON.readTree(started);
    assertThat(line.get("timestamp").asLong()).isPositive();
    assertThat(line.get("level").asText()).isEqualTo("INFO");
    assertThat(line.get("loggerName").asText()).isEqualTo("io.semafor.server.SemaforServer");
    assertThat(line.get("formattedMessage").asText()).startsWith("semafor listening on");
    // every log line is JSON; only the start banner on stdout is not
    assertThat(lines)
        .filteredOn(l -> !l.startsWith("semafor server listening on"))
        .allSatisfy(l -> assertThat(JSON.readTree(l).has("timestamp")).isTrue());
  }

  @Test
  void textLogLinesStartWithADate(@TempDir Path dir) throws Exception {
    List<String> lines = startedLog(dir, "text");
    String started =
        lines.stream()
            .filter(l -> l.contains("INFO") && l.contains("semafor listening on"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no log line for the start in " + lines));
    assertThat(OffsetDateTime.parse(started.substring(0, started.indexOf(' ')))).isNotNull();
  }

  @Test
  void anUnknownLogFormatIsAUsageError() throws Exception {
    Finished bad = CliProcess.runRaw("server", "--port", "0", "--log-format", "xml");
    assertThat(bad.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains("--log-format");
  }

  @Test
  void clientCommandsLogNothingButErrors() throws Exception {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      Finished created = CliProcess.run(semafor.address(), "create", "jobs", "2");
      assertThat(created.status()).isZero();
      assertThat(created.err()).isEmpty();
    }
  }
}
