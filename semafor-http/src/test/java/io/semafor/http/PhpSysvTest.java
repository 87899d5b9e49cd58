package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PHP script ({@code /usr/bin/php}, Debian's php-cli, with nothing but its stream functions) runs
 * the SysV readers-writer story over the HTTP API. Skips where php is absent, unless {@code
 * SEMAFOR_PHP_TESTS=required} (CI sets it): then it fails.
 */
class PhpSysvTest {
  @Test
  void aPhpScriptRunsTheReadersWriterStory(@TempDir Path work) throws Exception {
    Path php = Path.of("/usr/bin/php");
    boolean required = "required".equals(System.getenv("SEMAFOR_PHP_TESTS"));
    if (!Files.isExecutable(php)) {
      assertThat(required)
          .as("SEMAFOR_PHP_TESTS=required but /usr/bin/php is absent (apt-get install php-cli)")
          .isFalse();
      assumeTrue(false, "no /usr/bin/php");
    }
    Path script = work.resolve("sysv.php");
    try (InputStream in = PhpSysvTest.class.getResourceAsStream("/sysv.php")) {
      Files.write(script, in.readAllBytes());
    }
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
        HttpGateway gateway =
            HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null)) {
      Process p =
          new ProcessBuilder(php.toString(), script.toString(), gateway.baseUrl())
              .redirectErrorStream(true)
              .start();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out)
          .doesNotContain("FAIL")
          .endsWith("done\n")
          .contains("ok   the writer enters alone");
    }
  }
}
