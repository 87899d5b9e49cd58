package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/http.md as a user runs it: its {@code sh} blocks, in order, in one shell, with {@code
 * /usr/bin/curl}, against a server on a free port; each block's output must match the {@code json}
 * block after it, except the values that differ from run to run (ids, tokens, sequences,
 * revisions).
 */
class CurlDocsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> VARYING =
      List.of("permit_id", "token", "sequence", "revision", "expires_in_ms");
  private static final Pattern FENCE = Pattern.compile("```(\\w+)\\n(.*?)```", Pattern.DOTALL);

  record Block(String kind, String text) {}

  @Test
  void theCurlExamplesOfTheDocsRunAsWritten(@TempDir Path work) throws Exception {
    Path curl = Path.of("/usr/bin/curl");
    assumeTrue(Files.isExecutable(curl) || System.getenv("CI") != null, "no /usr/bin/curl");
    Path doc = Path.of("..", "docs", "http.md");
    List<Block> blocks = new ArrayList<>();
    Matcher m = FENCE.matcher(Files.readString(doc));
    while (m.find()) {
      blocks.add(new Block(m.group(1), m.group(2)));
    }
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
        HttpGateway gateway =
            HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null)) {
      String address = "127.0.0.1:" + gateway.address().getPort();
      StringBuilder script = new StringBuilder("set -e\ncurl() { /usr/bin/curl \"$@\"; }\n");
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < blocks.size(); i++) {
        if (!blocks.get(i).kind().equals("sh")) {
          continue;
        }
        script.append("echo '@@block ").append(expected.size()).append("'\n");
        script.append(blocks.get(i).text().replace("127.0.0.1:7402", address));
        boolean hasJson = i + 1 < blocks.size() && blocks.get(i + 1).kind().equals("json");
        expected.add(hasJson ? blocks.get(i + 1).text() : null);
      }
      assertThat(expected).hasSizeGreaterThanOrEqualTo(5);
      Path file = work.resolve("docs.sh");
      Files.writeString(file, script);
      Process p =
          new ProcessBuilder("bash", file.toString())
              .directory(work.toFile())
              .redirectErrorStream(true)
              .start();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the examples finish").isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isZero();
      String[] outputs = out.split("@@block \\d+\\n", -1);
      assertThat(outputs).as(out).hasSize(expected.size() + 1);
      for (int b = 0; b < expected.size(); b++) {
        String want = expected.get(b);
        if (want == null) {
          assertThat(outputs[b + 1]).as("block %d", b).isNotBlank();
          continue;
        }
        List<String> got = lines(outputs[b + 1]);
        List<String> wanted = lines(want);
        assertThat(got).as("block %d: %s", b, outputs[b + 1]).hasSameSizeAs(wanted);
        for (int l = 0; l < wanted.size(); l++) {
          assertThat(normal(got.get(l)))
              .as("block %d line %d", b, l)
              .isEqualTo(normal(wanted.get(l)));
        }
      }
    }
  }

  private static List<String> lines(String text) {
    return text.lines().filter(l -> !l.isBlank()).toList();
  }

  /** A line of JSON (and perhaps a status after it) with the varying values blanked. */
  private static String normal(String line) throws Exception {
    int end = line.lastIndexOf('}');
    JsonNode json = JSON.readTree(line.substring(0, end + 1));
    blank(json);
    return JSON.writeValueAsString(json) + line.substring(end + 1);
  }

  private static void blank(JsonNode node) {
    if (node instanceof ObjectNode o) {
      for (String key : VARYING) {
        if (o.has(key)) {
          o.put(key, "*");
        }
      }
    }
    node.forEach(CurlDocsTest::blank);
  }
}
