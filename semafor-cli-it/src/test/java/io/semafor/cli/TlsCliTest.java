package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import io.semafor.server.ServerTls;
import io.semafor.server.testing.TestPki;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI over TLS, as separate processes: client commands and {@code cluster status} with {@code
 * --tls-ca} (and a client certificate under mTLS); without it they cannot reach a TLS server; a
 * wrong file is a one-line usage error naming the option, for the server and the client alike.
 */
class TlsCliTest {
  @TempDir Path dir = Path.of("set-by-junit");

  private @Nullable SemaforServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private String start(TestPki pki, @Nullable Path clientCa) throws Exception {
    TestPki.Issued cert = pki.issue("node");
    server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .adminPort(0)
                .tls(ServerTls.load(cert.cert(), cert.key(), clientCa, null))
                .build());
    return "127.0.0.1:" + server.address().getPort();
  }

  @Test
  void clientCommandsWorkOverTlsWithTheCa() throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    String address = start(pki, null);
    String ca = pki.caFile().toString();

    assertThat(CliProcess.run(address, "create", "printers", "3", "--tls-ca", ca).status())
        .isZero();
    CliProcess.Finished get = CliProcess.run(address, "get", "printers", "--tls-ca", ca);
    assertThat(get.status()).isZero();
    assertThat(get.out().strip()).isEqualTo("3");
  }

  @Test
  void withoutTheCaAClientCommandCannotReachATlsServer() throws Exception {
    String address = start(TestPki.create(dir, "ca"), null);
    CliProcess.Finished f = CliProcess.run(address, "create", "printers", "3");
    assertThat(f.status()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(f.err().strip())
        .isEqualTo(
            "semafor: UNAVAILABLE: cannot reach a Semafor server at "
                + address
                + ": it speaks TLS; pass --tls-ca FILE, the CA of its certificate (or set"
                + " SEMAFOR_TLS_CA)");
  }

  @Test
  void aTlsClientCommandAgainstAPlaintextServerIsToldItDoesNotSpeakTls() throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    SemaforServer plaintext = SemaforServer.start(ServerConfig.builder().port(0).build());
    server = plaintext;
    String address = "127.0.0.1:" + plaintext.address().getPort();
    CliProcess.Finished f =
        CliProcess.run(address, "create", "printers", "3", "--tls-ca", pki.caFile().toString());
    assertThat(f.status()).isEqualTo(ExitCodes.UNREACHABLE);
    assertThat(f.err().strip())
        .isEqualTo(
            "semafor: UNAVAILABLE: cannot reach a Semafor server at "
                + address
                + ": it does not speak TLS; connect without --tls-ca, --tls-cert and --tls-key"
                + " (nor SEMAFOR_TLS_*), or start it with --tls-cert and --tls-key");
  }

  @Test
  void underMutualTlsTheClientCertificateOptionsLetTheCommandIn() throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    String address = start(pki, pki.caFile());
    TestPki.Issued alice = pki.issue("alice");
    String ca = pki.caFile().toString();

    assertThat(CliProcess.run(address, "create", "a", "1", "--tls-ca", ca).status())
        .as("no client certificate")
        .isEqualTo(ExitCodes.UNREACHABLE);
    CliProcess.Finished withCert =
        CliProcess.runWithEnvironment(
            java.util.Map.of(
                "SEMAFOR_TLS_CA", ca,
                "SEMAFOR_TLS_CERT", alice.cert().toString(),
                "SEMAFOR_TLS_KEY", alice.key().toString()),
            "create",
            "--server",
            address,
            "a",
            "1");
    assertThat(withCert.status()).as(withCert.err()).isZero();
  }

  @Test
  void clusterStatusReadsTheAdminPortOverHttps() throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    start(pki, null);
    int admin = Objects.requireNonNull(Objects.requireNonNull(server).adminAddress()).getPort();
    CliProcess.Finished f =
        CliProcess.runRaw(
            "cluster",
            "status",
            "--admin",
            "127.0.0.1:" + admin,
            "--tls-ca",
            pki.caFile().toString(),
            "--json");
    assertThat(f.status()).as(f.err()).isZero();
    assertThat(f.out()).doesNotContain("unreachable");
  }

  @Test
  void aMissingCaFileIsAClientUsageErrorNamingTheOption() throws Exception {
    Path missing = dir.resolve("missing-ca.pem");
    CliProcess.Finished f =
        CliProcess.run("127.0.0.1:1", "get", "x", "--tls-ca", missing.toString());
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err().strip()).isEqualTo("semafor: --tls-ca: " + missing + ": no such file");
  }

  @Test
  void aMissingCertificateFileIsAServerUsageErrorNamingTheOption() throws Exception {
    TestPki.Issued node = TestPki.create(dir, "ca").issue("node");
    Path missing = dir.resolve("missing.pem");
    CliProcess.Finished f =
        CliProcess.runRaw(
            "server",
            "--http-port",
            "-1",
            "--admin-port",
            "-1",
            "--tls-cert",
            missing.toString(),
            "--tls-key",
            node.key().toString());
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err())
        .contains("--tls-cert: " + missing + ": no such file")
        .doesNotContain("\tat ");
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsAServerUsageErrorNamingTheKeyOption() throws Exception {
    TestPki pki = TestPki.create(dir, "ca");
    TestPki.Issued node = pki.issue("node");
    TestPki.Issued other = pki.issue("other");
    CliProcess.Finished f =
        CliProcess.runRaw(
            "server",
            "--http-port",
            "-1",
            "--admin-port",
            "-1",
            "--tls-cert",
            node.cert().toString(),
            "--tls-key",
            other.key().toString());
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err())
        .contains("--tls-key: the key does not belong to the certificate ")
        .contains("CN=node")
        .doesNotContain("\tat ");
  }

  /** A cluster node's command line, before the options under test. */
  private static java.util.List<String> clusterNode(Path dir) {
    return new java.util.ArrayList<>(
        java.util.List.of(
            "server",
            "--node-id",
            "n1",
            "--peers",
            "n1=127.0.0.1:1:2",
            "--data-dir",
            dir.resolve("n1").toString(),
            "--http-port",
            "-1",
            "--admin-port",
            "-1"));
  }

  /** A cluster node's command line with TLS on its ports, before the options under test. */
  private static java.util.List<String> clusterNode(Path dir, TestPki.Issued node) {
    java.util.List<String> args = clusterNode(dir);
    args.addAll(
        java.util.List.of(
            "--tls-cert", node.cert().toString(), "--tls-key", node.key().toString()));
    return args;
  }

  @Test
  void aPeerCaBundleHoldingTheClientCaIsAServerUsageError() throws Exception {
    TestPki peers = TestPki.create(dir, "peers");
    TestPki clients = TestPki.create(dir, "clients");
    Path bundle = dir.resolve("bundle.pem");
    java.nio.file.Files.writeString(
        bundle,
        java.nio.file.Files.readString(peers.caFile())
            + java.nio.file.Files.readString(clients.caFile()));
    java.util.List<String> args = clusterNode(dir, peers.issue("n1"));
    args.addAll(
        java.util.List.of(
            "--tls-client-ca", clients.caFile().toString(), "--tls-peer-ca", bundle.toString()));
    CliProcess.Finished f = CliProcess.runRaw(args.toArray(String[]::new));
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err())
        .contains("--tls-peer-ca " + bundle + ": holds a CA of --tls-client-ca too")
        .doesNotContain("\tat ");
  }

  @Test
  void anEmptyPeerNameIsAServerUsageErrorNamingTheOption() throws Exception {
    TestPki peers = TestPki.create(dir, "peers");
    java.util.List<String> args = clusterNode(dir, peers.issue("n1"));
    args.addAll(
        java.util.List.of(
            "--tls-peer-ca", peers.caFile().toString(), "--tls-peer-names", "n1,,n3"));
    CliProcess.Finished f = CliProcess.runRaw(args.toArray(String[]::new));
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err())
        .contains("--tls-peer-names: 'n1,,n3' has an empty name")
        .doesNotContain("\tat ");
  }

  @Test
  void peerOptionsOnASingleNodeAreAServerUsageError() throws Exception {
    CliProcess.Finished f =
        CliProcess.runRaw(
            "server", "--http-port", "-1", "--admin-port", "-1", "--tls-peer-names", "n1,n2");
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err())
        .contains("--tls-peer-names: only a cluster node (--node-id, --peers) has peers to check")
        .doesNotContain("\tat ");
  }

  @Test
  void peerNamesWithoutTlsAreAServerUsageError() throws Exception {
    java.util.List<String> args = clusterNode(dir);
    args.addAll(java.util.List.of("--tls-peer-names", "n1"));
    CliProcess.Finished f = CliProcess.runRaw(args.toArray(String[]::new));
    assertThat(f.status()).isEqualTo(ExitCodes.USAGE);
    assertThat(f.err())
        .contains("--tls-peer-names: needs --tls-cert and --tls-key")
        .doesNotContain("\tat ");
  }
}
