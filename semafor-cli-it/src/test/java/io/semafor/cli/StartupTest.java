package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What client commands skip at start-up (decision 0025), and that they lose nothing by it. */
class StartupTest {
  @Test
  void aCommandLineNamingASubcommandBuildsOnlyThatOne() {
    assertThat(SemaforCommand.commandLine("get").getSubcommands()).containsOnlyKeys("get");
    assertThat(SemaforCommand.commandLine("wait-zero").getSubcommands())
        .containsOnlyKeys("wait-zero");
    assertThat(SemaforCommand.commandLine("cluster").getSubcommands().get("cluster"))
        .satisfies(c -> assertThat(c.getSubcommands()).containsKeys("status", "add", "remove"));
  }

  @Test
  void anyOtherFirstWordBuildsEverySubcommandInOrder() {
    for (String first : new String[] {"", "--help", "-V", "--debug", "gte"}) {
      assertThat(SemaforCommand.commandLine(first).getSubcommands().keySet())
          .as(first)
          .hasSize(SemaforCommand.SUBCOMMANDS.size())
          .startsWith("server", "create", "delete", "get");
    }
  }

  @Test
  void subcommandNamesAreDistinct() {
    Set<String> names = new HashSet<>();
    for (Class<?> c : SemaforCommand.SUBCOMMANDS) {
      CommandLine.Command command = c.getAnnotation(CommandLine.Command.class);
      assertThat(command).as(c.getName()).isNotNull();
      assertThat(names.add(command.name())).as(command.name()).isTrue();
    }
  }

  @Test
  void clientCommandsLogWithoutLogbackUnlessTheUserChoseALogger() {
    Properties none = new Properties();
    assertThat(Main.clientLogging("get", none)).isTrue();
    assertThat(Main.clientLogging("run", none)).isTrue();
    assertThat(Main.clientLogging("", none)).isTrue();
    assertThat(Main.clientLogging("server", none)).isFalse();
    assertThat(Main.clientLogging("cluster", none)).isFalse();
    assertThat(Main.clientLogging("bench", none)).isFalse();

    Properties logback = new Properties();
    logback.setProperty("logback.configurationFile", "/etc/semafor/logback.xml");
    assertThat(Main.clientLogging("get", logback)).isFalse();
    Properties provider = new Properties();
    provider.setProperty(Main.SLF4J_PROVIDER, "org.example.Provider");
    assertThat(Main.clientLogging("get", provider)).isFalse();
  }

  @Test
  void clientLoggingPrintsWarningsLikeTheLogbackPatternAndDropsInfo() {
    ClientLogging.WarnLogger log = new ClientLogging.WarnLogger("io.semafor.client.internal.Link");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream saved = System.err;
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      log.info("not shown {}", 1);
      log.warn("server {}: {}", "127.0.0.1:1", "refused");
      log.error("failed", new IllegalStateException("boom"));
    } finally {
      System.setErr(saved);
    }
    java.util.List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines.get(0))
        .matches(
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  i\\.s\\.c\\.i\\.Link - server 127.0.0.1:1: refused");
    assertThat(lines.get(1)).endsWith(" ERROR i.s.c.i.Link - failed");
    assertThat(lines.get(2)).isEqualTo("java.lang.IllegalStateException: boom");
    assertThat(ClientLogging.WarnLogger.abbreviate("Link")).isEqualTo("Link");
  }
}
