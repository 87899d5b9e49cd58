package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.SemaforClient;
import io.semafor.embedded.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code semafor server} as an operator runs it: settings from a {@code --config} file, {@code
 * SEMAFOR_*} environment variables and flags, in that order of precedence, and the limits they set
 * enforced by the running server.
 */
class ServerConfigurationTest {
  @TempDir Path dir = Path.of("set-by-junit");

  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (Process p : started) {
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void theEnvironmentWinsOverTheConfigFileAndAFlagWinsOverBoth() throws Exception {
    int inFile = freePort();
    int inEnvironment = freePort();
    int onCommandLine = freePort();
    Path config = write("semafor.conf", "port = " + inFile + "\nadmin-port = -1\nhttp-port = -1\n");

    Process fromEnvironment =
        server(Map.of("SEMAFOR_PORT", Integer.toString(inEnvironment)), "--config", config);
    assertListening(fromEnvironment, "server-1.log", inEnvironment);

    Process fromFlag =
        server(
            Map.of("SEMAFOR_PORT", Integer.toString(inEnvironment)),
            "--config",
            config,
            "--port",
            Integer.toString(onCommandLine));
    assertListening(fromFlag, "server-2.log", onCommandLine);
  }

  @Test
  void theConfigFileCanBeNamedBySemaforConfigAndItsSettingsApply() throws Exception {
    int port = freePort();
    Path config =
        write("semafor.conf", "# a comment\nport = " + port + "\nadmin-port=-1\nhttp-port=-1\n");
    Process server = server(Map.of("SEMAFOR_CONFIG", config.toString()));
    assertListening(server, "server-1.log", port);
  }

  @Test
  void aLimitFromTheConfigFileIsEnforcedByTheServer() throws Exception {
    int port = freePort();
    Path config =
        write(
            "semafor.conf",
            "port = " + port + "\nadmin-port = -1\nhttp-port = -1\nmax-name-bytes = 8\n");
    assertListening(server(Map.of(), "--config", config), "server-1.log", port);

    String address = "127.0.0.1:" + port;
    assertThat(CliProcess.run(address, "create", "short", "1").status()).isZero();
    CliProcess.Finished tooLong = CliProcess.run(address, "create", "much-too-long", "1");
    assertThat(tooLong.status()).isEqualTo(1);
    assertThat(tooLong.err()).startsWith("semafor: INVALID_ARGUMENT");
    try (SemaforClient client = SemaforClient.builder().addresses(address).connect()) {
      assertThat(client.list("")).containsExactly("short");
    }
  }

  @Test
  void aSettingTheFileMisspellsIsAUsageErrorInOneLine() throws Exception {
    Path config = write("semafor.conf", "prot = 7400\n");
    CliProcess.Finished f = CliProcess.runRaw("server", "--config", config.toString());
    assertThat(f.status()).isEqualTo(2);
    assertThat(f.err())
        .isEqualTo(
            "semafor server: --config "
                + config
                + ": unknown setting 'prot' (settings are the server's long options without the"
                + " dashes, e.g. port)");
  }

  @Test
  void aLimitOutOfRangeIsAUsageErrorNamingItsOption() throws Exception {
    CliProcess.Finished f =
        CliProcess.runWithEnvironment(
            Map.of("SEMAFOR_MAX_SESSIONS", "0"),
            "server",
            "--http-port",
            "-1",
            "--admin-port",
            "-1");
    assertThat(f.status()).isEqualTo(2);
    assertThat(f.err().lines()).hasSize(2);
    assertThat(f.err()).startsWith("semafor server: --max-sessions < 1: 0");
  }

  private Process server(Map<String, String> environment, Object... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add("server");
    for (Object a : args) {
      command.add(a.toString());
    }
    Path log = dir.resolve("server-" + (started.size() + 1) + ".log");
    Process p =
        CliProcess.startRawWithEnvironment(log, environment, command.toArray(String[]::new));
    started.add(p);
    return p;
  }

  private void assertListening(Process server, String logName, int port) {
    Path log = dir.resolve(logName);
    // The server's log line ("semafor listening on …") can reach the file before the stdout
    // line this asserts on, so wait for the announcement itself, not for any "listening on".
    Pattern announced =
        Pattern.compile("semafor server listening on 127\\.0\\.0\\.1:" + port + "\\b");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !server.isAlive() || announced.matcher(readQuietly(log)).find());
    assertThat(server.isAlive()).as("the server is running").isTrue();
    assertThat(readQuietly(log)).containsPattern(announced);
  }

  private static String readQuietly(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  private static int freePort() {
    return FreePorts.next();
  }
}
