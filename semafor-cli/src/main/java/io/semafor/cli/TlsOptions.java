package io.semafor.cli;

import io.semafor.client.TlsConfig;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The TLS options of every command that talks to a server, on its client port or its admin port.
 * Nothing of TLS is loaded unless one is given (the CLI's start-up, decision 0025).
 */
final class TlsOptions {
  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      defaultValue = "${env:SEMAFOR_TLS_CA}",
      description =
          "Speak TLS, trusting servers whose certificate leads to a CA in this PEM file."
              + " Default: $SEMAFOR_TLS_CA.")
  @Nullable Path ca;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      defaultValue = "${env:SEMAFOR_TLS_CERT}",
      description =
          "Speak TLS, presenting this PEM client certificate (with --tls-key) to servers that"
              + " verify clients. Default: $SEMAFOR_TLS_CERT.")
  @Nullable Path cert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      defaultValue = "${env:SEMAFOR_TLS_KEY}",
      description = "The key of --tls-cert (PEM, unencrypted PKCS#8). Default: $SEMAFOR_TLS_KEY.")
  @Nullable Path key;

  /** Whether any TLS option was given (an empty environment variable counts as not set). */
  boolean enabled() {
    return given(ca) != null || given(cert) != null || given(key) != null;
  }

  private static @Nullable Path given(@Nullable Path file) {
    return file == null || file.toString().isEmpty() ? null : file;
  }

  /**
   * The client's TLS, read and checked; only called when {@link #enabled()}.
   *
   * @throws ServerOptions.BadOption naming the option whose file is wrong
   */
  TlsConfig config() {
    Path c = given(cert);
    Path k = given(key);
    Path trusted = given(ca);
    if ((c == null) != (k == null)) {
      throw new ServerOptions.BadOption(
          (c == null ? "--tls-key: needs --tls-cert" : "--tls-cert: needs --tls-key") + " too",
          null);
    }
    TlsConfig.Builder builder = TlsConfig.builder();
    if (trusted != null) {
      builder.trustedCa(trusted);
    }
    if (c != null && k != null) {
      builder.clientCertificate(c, k);
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new ServerOptions.BadOption("--tls-" + e.getMessage(), e);
    }
  }

  /**
   * The JDK context for HTTPS to admin ports, read and checked; only called when {@link
   * #enabled()}.
   *
   * @throws ServerOptions.BadOption naming the option whose file is wrong
   */
  SSLContext sslContext() {
    return config().sslContext();
  }
}
