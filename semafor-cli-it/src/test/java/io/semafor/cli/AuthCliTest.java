package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.embedded.FreePorts;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI with authentication, as separate processes: {@code semafor auth token} issues a token and
 * its entry, a client command authenticates with $SEMAFOR_TOKEN or --token-file, and is refused in
 * one line without it or outside its permissions; {@code semafor auth reload} puts an edited file
 * in force.
 */
class AuthCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir = Path.of("set-by-junit");

  private @Nullable SemaforServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Runs {@code semafor auth token PRINCIPAL}: the token and the file entry it printed. */
  private static String[] issue(String principal) throws Exception {
    CliProcess.Finished f = CliProcess.runRaw("auth", "token", principal);
    assertThat(f.status()).as(f.err()).isZero();
    String[] lines = f.out().strip().split("\n", -1);
    assertThat(lines).hasSize(2);
    return lines;
  }

  private static AuthFile.TokenEntry entry(String json) throws Exception {
    return JSON.readValue(json, AuthFile.TokenEntry.class);
  }

  /** A server whose auth file admits the given entries with the given rules. */
  private String start(List<AuthFile.TokenEntry> tokens, List<AuthFile.Rule> rules)
      throws Exception {
    Path file = dir.resolve("auth.json");
    Files.writeString(file, new AuthFile(tokens, rules).toJson());
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).adminPort(0).security(Security.of(file)).build());
    return "127.0.0.1:" + server.address().getPort();
  }

  private String admin() {
    return "127.0.0.1:"
        + Objects.requireNonNull(Objects.requireNonNull(server).adminAddress()).getPort();
  }

  @Test
  void authTokenPrintsATokenAndAnEntryThatNeverHoldsIt() throws Exception {
    String[] issued = issue("alice");
    assertThat(issued[0]).startsWith("smf.");
    AuthFile.TokenEntry entry = entry(issued[1]);
    assertThat(entry.principal()).isEqualTo("alice");
    assertThat(issued[1]).doesNotContain(issued[0].substring(issued[0].lastIndexOf('.') + 1));
  }

  @Test
  void authTokenOutWritesTheTokenToAFileOnlyItsOwnerCanReadAndPrintsTheEntryAlone()
      throws Exception {
    Path file = dir.resolve("alice.token");
    CliProcess.Finished f = CliProcess.runRaw("auth", "token", "alice", "--out", file.toString());
    assertThat(f.status()).as(f.err()).isZero();
    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    String token = Files.readString(file);
    assertThat(token).matches("smf\\.[^.\\s]+\\.[^.\\s]+\n");
    assertThat(f.out().lines()).singleElement().asString().doesNotContain(token.strip());
    AuthFile.TokenEntry entry = entry(f.out());
    assertThat(entry.principal()).isEqualTo("alice");

    String address =
        start(List.of(entry), List.of(new AuthFile.Rule("alice", "", List.of("read", "admin"))));
    CliProcess.Finished created =
        CliProcess.run(address, "create", "printers", "2", "--token-file", file.toString());
    assertThat(created.status()).as(created.err()).isZero();
  }

  @Test
  void authTokenOutRefusesAnExistingFileUnlessForcedAndTheReplacementIsOwnerOnly()
      throws Exception {
    Path file = dir.resolve("ops.token");
    Files.writeString(file, "keep me\n");
    Files.setPosixFilePermissions(
        file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    CliProcess.Finished refused =
        CliProcess.runRaw("auth", "token", "ops", "--out", file.toString());
    assertThat(refused.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(refused.err().strip())
        .isEqualTo("semafor: --out " + file + ": exists; pass --force to replace it");
    assertThat(refused.out()).isEmpty();
    assertThat(Files.readString(file)).isEqualTo("keep me\n");

    CliProcess.Finished forced =
        CliProcess.runRaw("auth", "token", "ops", "--out", file.toString(), "--force", "--json");
    assertThat(forced.status()).as(forced.err()).isZero();
    assertThat(Files.readString(file)).startsWith("smf.");
    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    com.fasterxml.jackson.databind.JsonNode json = JSON.readTree(forced.out());
    assertThat(json.get("tokenFile").asText()).isEqualTo(file.toString());
    assertThat(json.has("token")).isFalse();
    assertThat(json.get("entry").get("principal").asText()).isEqualTo("ops");
    try (var listing = Files.list(dir)) {
      assertThat(listing.map(p -> p.getFileName().toString())).containsExactly("ops.token");
    }
  }

  @Test
  void aClientCommandAuthenticatesWithTheTokenInTheEnvironmentOrAFile() throws Exception {
    String[] alice = issue("alice");
    String address =
        start(
            List.of(entry(alice[1])),
            List.of(new AuthFile.Rule("alice", "", List.of("read", "admin"))));
    CliProcess.Finished created =
        CliProcess.runWithEnvironment(
            Map.of("SEMAFOR_TOKEN", alice[0]), "create", "printers", "2", "--server", address);
    assertThat(created.status()).as(created.err()).isZero();

    Path tokenFile = Files.writeString(dir.resolve("token"), alice[0] + "\n");
    CliProcess.Finished got =
        CliProcess.run(address, "get", "printers", "--token-file", tokenFile.toString());
    assertThat(got.status()).as(got.err()).isZero();
    assertThat(got.out().strip()).isEqualTo("2");
  }

  @Test
  void withoutATokenAClientCommandIsRefusedInOneLine() throws Exception {
    String address = start(List.of(entry(issue("alice")[1])), List.of());
    CliProcess.Finished f = CliProcess.run(address, "get", "printers");
    assertThat(f.status()).isEqualTo(ExitCodes.FAILED);
    assertThat(f.err().strip())
        .isEqualTo(
            "semafor: UNAUTHENTICATED: credentials: none given (a token, or a client"
                + " certificate)");
  }

  @Test
  void aCommandOutsideThePrincipalsPermissionsIsDeniedNamingThePermission() throws Exception {
    String[] alice = issue("alice");
    String address =
        start(
            List.of(entry(alice[1])),
            List.of(new AuthFile.Rule("alice", "jobs/", List.of("read", "acquire"))));
    CliProcess.Finished f =
        CliProcess.runWithEnvironment(
            Map.of("SEMAFOR_TOKEN", alice[0]), "create", "payroll", "1", "--server", address);
    assertThat(f.status()).isEqualTo(ExitCodes.FAILED);
    assertThat(f.err().strip())
        .isEqualTo(
            "semafor: PERMISSION_DENIED: permission 'admin' on \"payroll\" is needed; alice does"
                + " not have it");
  }

  @Test
  void authReloadPutsANewTokenInForce() throws Exception {
    String[] ops = issue("ops");
    String[] bob = issue("bob");
    List<AuthFile.Rule> rules =
        List.of(
            new AuthFile.Rule("ops", "", List.of("cluster")),
            new AuthFile.Rule("bob", "", List.of("read")));
    String address = start(List.of(entry(ops[1])), rules);
    Map<String, String> asBob = Map.of("SEMAFOR_TOKEN", bob[0]);
    assertThat(CliProcess.runWithEnvironment(asBob, "list", "--server", address).status())
        .isEqualTo(ExitCodes.FAILED);

    Files.writeString(
        dir.resolve("auth.json"),
        new AuthFile(List.of(entry(ops[1]), entry(bob[1])), rules).toJson());
    CliProcess.Finished reload =
        CliProcess.runWithEnvironment(
            Map.of("SEMAFOR_TOKEN", ops[0]), "auth", "reload", "--admin", admin());
    assertThat(reload.status()).as(reload.err()).isZero();
    assertThat(reload.out()).contains("reloaded: 2 tokens, 2 rules");
    assertThat(CliProcess.runWithEnvironment(asBob, "list", "--server", address).status()).isZero();
  }

  @Test
  void authReloadWithoutClusterIsRefused() throws Exception {
    String[] bob = issue("bob");
    start(List.of(entry(bob[1])), List.of(new AuthFile.Rule("bob", "", List.of("read"))));
    CliProcess.Finished f =
        CliProcess.runWithEnvironment(
            Map.of("SEMAFOR_TOKEN", bob[0]), "auth", "reload", "--admin", admin());
    assertThat(f.status()).isEqualTo(ExitCodes.FAILED);
    assertThat(f.err()).contains("PERMISSION_DENIED").contains("'cluster'");
  }

  @Test
  void clusterStatusWithoutTheClusterPermissionNamesItInAnAlignedTableAndExitsOne()
      throws Exception {
    String[] bob = issue("bob");
    start(List.of(entry(bob[1])), List.of(new AuthFile.Rule("bob", "", List.of("read"))));
    CliProcess.Finished f =
        CliProcess.runWithEnvironment(
            Map.of("SEMAFOR_TOKEN", bob[0]), "cluster", "status", "--admin", admin());
    assertThat(f.status()).isEqualTo(ExitCodes.FAILED);
    assertThat(f.err().lines())
        .singleElement()
        .asString()
        .startsWith("semafor: " + admin() + ": PERMISSION_DENIED: permission 'cluster' is needed")
        .contains("bob does not have it");
    List<String> table = f.out().lines().toList();
    assertThat(table).hasSize(2);
    assertThat(table.get(1).indexOf("refused")).isEqualTo(table.get(0).indexOf("ROLE"));
  }

  @Test
  void aServerProcessWritesRefusedCredentialsToItsAuditLog() throws Exception {
    Path file = dir.resolve("auth.json");
    Files.writeString(file, new AuthFile(List.of(entry(issue("alice")[1])), List.of()).toJson());
    int port = FreePorts.next();
    Path log = dir.resolve("server.log");
    Process p =
        CliProcess.startRaw(
            log,
            "server",
            "--port",
            Integer.toString(port),
            "--http-port",
            "-1",
            "--admin-port",
            "-1",
            "--auth-file",
            file.toString());
    try {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(30))
          .until(() -> !p.isAlive() || Files.readString(log).contains("semafor server listening"));
      assertThat(CliProcess.run("127.0.0.1:" + port, "get", "x").status())
          .isEqualTo(ExitCodes.FAILED);
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(Files.readString(log))
                      .containsPattern("INFO .*semafor\\.audit - action=hello .*UNAUTHENTICATED"));
    } finally {
      p.destroy();
      if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void aLeaseIsReleasedByIdNamingItsSemaphoreWherePermissionsApply() throws Exception {
    String[] alice = issue("alice");
    String address =
        start(
            List.of(entry(alice[1])),
            List.of(new AuthFile.Rule("alice", "jobs/", List.of("admin", "acquire", "release"))));
    Map<String, String> asAlice = Map.of("SEMAFOR_TOKEN", alice[0]);
    assertThat(
            CliProcess.runWithEnvironment(asAlice, "create", "jobs/x", "1", "--server", address)
                .status())
        .isZero();
    CliProcess.Finished leased =
        CliProcess.runWithEnvironment(
            asAlice, "acquire", "jobs/x", "1", "--lease", "1m", "--json", "--server", address);
    assertThat(leased.status()).as(leased.err()).isZero();
    String permit = JSON.readTree(leased.out()).get("permitId").asText();

    CliProcess.Finished byIdAlone =
        CliProcess.runWithEnvironment(asAlice, "release", permit, "--server", address);
    assertThat(byIdAlone.status()).isEqualTo(ExitCodes.FAILED);
    assertThat(byIdAlone.err()).startsWith("semafor: PERMISSION_DENIED: name:");
    CliProcess.Finished renewedByIdAlone =
        CliProcess.runWithEnvironment(asAlice, "renew", permit, "1m", "--server", address);
    assertThat(renewedByIdAlone.status()).isEqualTo(ExitCodes.FAILED);
    for (CliProcess.Finished f : List.of(byIdAlone, renewedByIdAlone)) {
      assertThat(f.err().lines())
          .singleElement()
          .asString()
          .startsWith("semafor: PERMISSION_DENIED: name:")
          .contains("; pass --semaphore NAME, the lease's semaphore");
    }
    CliProcess.Finished named =
        CliProcess.runWithEnvironment(
            asAlice, "release", permit, "--semaphore", "jobs/x", "--server", address);
    assertThat(named.status()).as(named.err()).isZero();
  }
}
