package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.core.Limits;
import io.semafor.server.options.ConfigDefaults;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The server's options as {@code java -jar semafor-server.jar} parses them (the same definition
 * {@code semafor server} uses): where each value comes from, and every limit being settable.
 */
class ServerOptionsTest {
  @TempDir Path dir = Path.of("set-by-junit");

  private ServerConfig parse(Map<String, String> environment, String... args) {
    Main main = new Main();
    CommandLine line = new CommandLine(main);
    ConfigDefaults.install(line, List.of(args), environment);
    line.parseArgs(args);
    return main.options.config(main.options.host(), main.options.port());
  }

  private Path config(String text) throws IOException {
    return Files.writeString(dir.resolve("semafor.conf"), text, StandardCharsets.UTF_8);
  }

  @Test
  void withNothingGivenEveryDefaultIsTheContractsDefault() {
    ServerConfig config = parse(Map.of());
    assertThat(config.port()).isEqualTo(7400);
    assertThat(config.adminPort()).isEqualTo(7401);
    assertThat(config.defaultSessionTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.limits()).isEqualTo(Limits.DEFAULT);
    assertThat(config.clientLimits()).isEqualTo(ClientLimits.DEFAULT);
  }

  @Test
  void everyLimitOnOneClientCanBeSet() {
    ServerConfig config =
        parse(
            Map.of("SEMAFOR_MAX_SESSIONS_PER_CLIENT", "3"),
            "--max-connections=100",
            "--max-connections-per-client=10",
            "--hello-timeout=2s",
            "--frame-timeout=3s",
            "--idle-timeout=4s",
            "--max-pending-frame-bytes=1048576",
            "--max-unread-bytes=2097152");
    assertThat(config.clientLimits())
        .isEqualTo(
            new ClientLimits(
                100,
                10,
                3,
                Duration.ofSeconds(2),
                Duration.ofSeconds(3),
                Duration.ofSeconds(4),
                1L << 20,
                2L << 20));
  }

  @Test
  void aClientLimitOutOfRangeIsRefusedNamingItsOption() {
    assertThatThrownBy(() -> parse(Map.of(), "--max-connections-per-client", "0"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("--max-connections-per-client < 1: 0");
  }

  @Test
  void aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() throws Exception {
    Path file = config("port = 1111\nsession-ttl = 20s\nmax-sessions = 30\nio-threads = 3\n");
    Map<String, String> environment = Map.of("SEMAFOR_PORT", "2222", "SEMAFOR_SESSION_TTL", "25s");
    ServerConfig config =
        parse(environment, "--config", file.toString(), "--port", "3333", "--io-threads", "4");
    assertThat(config.port()).as("flag over environment and file").isEqualTo(3333);
    assertThat(config.defaultSessionTtl()).as("environment over file").hasSeconds(25);
    assertThat(config.limits().maxSessions()).as("file over default").isEqualTo(30);
    assertThat(config.ioThreads()).as("flag over file").isEqualTo(4);
    assertThat(config.adminPort()).as("default").isEqualTo(7401);
  }

  @Test
  void semaforConfigNamesTheFileWhenNoFlagDoes() throws Exception {
    Path file = config("max-semop-ops = 7\n");
    assertThat(parse(Map.of("SEMAFOR_CONFIG", file.toString())).limits().maxSemopOps())
        .isEqualTo(7);
  }

  @Test
  void everyLimitOfTheSemanticsCanBeSet() {
    ServerConfig config =
        parse(
            Map.of(),
            "--max-name-bytes=10",
            "--max-semaphores=11",
            "--max-sessions=12",
            "--max-waiters-per-session=13",
            "--max-wait-many-entries=64",
            "--max-semop-ops=15",
            "--max-unacked-replies=16",
            "--max-slotted-capacity=17",
            "--grants-per-command=18",
            "--max-frame-bytes=4096",
            "--min-session-ttl=50ms",
            "--max-session-ttl=2m",
            "--session-ttl=1m");
    assertThat(config.limits()).isEqualTo(new Limits(10, 11, 12, 13, 64, 15, 16, 17, 18));
    assertThat(config.maxFrameBytes()).isEqualTo(4096);
    assertThat(config.minSessionTtl()).isEqualTo(Duration.ofMillis(50));
    assertThat(config.maxSessionTtl()).isEqualTo(Duration.ofMinutes(2));
    assertThat(config.defaultSessionTtl()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void aKeyInTheFileThatNamesNoOptionIsRefused() throws Exception {
    Path file = config("max-sesions = 5\n");
    assertThatThrownBy(() -> parse(Map.of(), "--config", file.toString()))
        .isInstanceOf(ConfigDefaults.BadConfig.class)
        .hasMessage(
            file
                + ": unknown setting 'max-sesions' (settings are the server's long options"
                + " without the dashes, e.g. port)");
  }

  @Test
  void aValueOutOfRangeIsRefusedNamingTheOptionNotTheJavaField() {
    assertThatThrownBy(() -> parse(Map.of(), "--max-session-ttl", "1s"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("--session-ttl outside 100ms..1s: 10s");
  }

  @Test
  void theStandaloneJarsHelpListsTheSameOptionsAsSemaforServer() {
    CommandLine line = new CommandLine(new Main());
    StringWriter out = new StringWriter();
    line.setOut(new PrintWriter(out));
    assertThat(line.execute("--help")).isZero();
    assertThat(out.toString())
        .contains("--config=FILE", "--max-semaphore-series=N", "--grants-per-command=N")
        .contains("--max-waiters-per-session=N", "--min-session-ttl=D");
  }

  @Test
  void aBadValueIsAUsageErrorInTwoLinesWithoutTheUsageText() {
    StringWriter err = new StringWriter();
    CommandLine line = new CommandLine(new Main());
    line.setErr(new PrintWriter(err));
    line.setParameterExceptionHandler(io.semafor.server.options.CommandLines.oneLineUsageErrors());
    assertThat(line.execute("--port", "many")).isEqualTo(2);
    assertThat(err.toString().lines())
        .containsExactly(
            "semafor-server: Invalid value for option '--port': 'many' is not an int",
            "Try 'semafor-server --help' for more information.");
  }

  @Test
  void listingBeyondLoopbackWithoutTlsAndAnAuthFileIsRefused() {
    assertThatThrownBy(() -> parse(Map.of(), "--host", "0.0.0.0"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageStartingWith("--host 0.0.0.0: listening beyond loopback needs --tls-cert,")
        .hasMessageContaining("--auth-file")
        .hasMessageContaining("--insecure");
  }

  @Test
  void insecureAllowsListeningBeyondLoopbackAndSaysSo() {
    ServerConfig config = parse(Map.of(), "--host", "0.0.0.0", "--insecure");
    assertThat(config.insecure()).isTrue();
  }

  @Test
  void loopbackNeedsNeitherTlsNorAnAuthFile() {
    assertThat(parse(Map.of(), "--host", "127.0.0.2").host()).isEqualTo("127.0.0.2");
    assertThat(parse(Map.of(), "--host", "::1").host()).isEqualTo("::1");
  }

  @Test
  void anAuthFileNamingAnUnknownPermissionIsRefusedNamingTheRule() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("auth.json"),
            "{\"rules\": [{\"principal\": \"a\", \"permissions\": [\"read\", \"fly\"]}]}");
    assertThatThrownBy(() -> parse(Map.of(), "--auth-file", file.toString()))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage(
            "--auth-file "
                + file
                + ": rules[0].permissions: unknown permission 'fly' (read, acquire, release,"
                + " admin, cluster)");
  }

  @Test
  void anAuthFileWithAMisspeltKeyIsRefused() throws Exception {
    Path file = Files.writeString(dir.resolve("auth.json"), "{\"rulez\": []}");
    assertThatThrownBy(() -> parse(Map.of(), "--auth-file", file.toString()))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageStartingWith("--auth-file " + file + ": ")
        .hasMessageContaining("rulez");
  }
}
