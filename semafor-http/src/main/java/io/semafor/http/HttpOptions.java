package io.semafor.http;

import io.semafor.client.TlsConfig;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerTls;
import io.semafor.server.options.Durations;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * The HTTP API's options of {@code semafor server} (a picocli mixin; each also a {@code SEMAFOR_*}
 * variable or {@code --config} key, as every server option). Filled in by picocli; not thread-safe.
 */
public final class HttpOptions {
  private static final Logger log = LoggerFactory.getLogger(HttpOptions.class);

  @Option(
      names = "--http-port",
      paramLabel = "P",
      description =
          "HTTP/JSON API port on --host, with the server's TLS and auth file (docs/http.md)"
              + " (default: the client port + 2, so 7402; any free port when the client port is"
              + " 0; -1: none; 0: any).")
  @Nullable Integer port;

  @Option(
      names = "--http-max-body-bytes",
      paramLabel = "N",
      defaultValue = "65536",
      description = "Largest HTTP request body; larger is refused 413 (default ${DEFAULT-VALUE}).")
  int maxBodyBytes = HttpConfig.DEFAULTS.maxBodyBytes();

  @Option(
      names = "--http-max-waits-per-principal",
      paramLabel = "N",
      defaultValue = "256",
      description =
          "Long polls and event streams one bearer token may have open at once; more are refused"
              + " 429 (default ${DEFAULT-VALUE}).")
  int maxWaits = HttpConfig.DEFAULTS.maxWaitsPerPrincipal();

  @Option(
      names = "--http-max-wait",
      paramLabel = "D",
      defaultValue = "5m",
      converter = Durations.class,
      description = "Longest timeout_ms a long poll may ask for (default ${DEFAULT-VALUE}).")
  Duration maxWait = HttpConfig.DEFAULTS.maxWait();

  /** Creates the mixin picocli fills in. */
  public HttpOptions() {}

  /**
   * The port the API listens on beside a server whose client port is {@code clientPort}: {@code
   * --http-port} if given, else the client port + 2 (7402 beside 7400; any free port beside port
   * 0), so that several servers on one host, each with its own client port, do not collide on the
   * API's; -1 for none.
   *
   * @throws IllegalArgumentException naming --http-port when the derived port is past 65535
   */
  public int port(int clientPort) {
    if (port != null) {
      return port;
    }
    if (clientPort == 0) {
      return 0;
    }
    if (clientPort + 2 > 65_535) {
      throw new IllegalArgumentException(
          "httpPort past 65535: the client port "
              + clientPort
              + " + 2; give --http-port, or -1 for no HTTP API");
    }
    return clientPort + 2;
  }

  /**
   * The API's settings but its port ({@link #port(int)}: known once the client port is), checked
   * before anything starts.
   *
   * @throws IllegalArgumentException naming the setting out of range
   */
  public HttpConfig config() {
    if (port != null && (port < -1 || port > 65_535)) {
      throw new IllegalArgumentException("httpPort outside -1..65535: " + port);
    }
    return new HttpConfig(
        port == null ? HttpConfig.DEFAULT_PORT : Math.max(0, port),
        maxBodyBytes,
        maxWaits,
        maxWait,
        HttpConfig.DEFAULTS.idleTimeout(),
        HttpConfig.DEFAULTS.writeTimeout(),
        HttpConfig.DEFAULTS.eventKeepAlive(),
        HttpConfig.DEFAULTS.clientIdle());
  }

  /**
   * Starts the API of {@code server} as configured, on {@link #port(int)} of its client port, or
   * none ({@code --http-port -1}, or a server that requires client certificates: the gateway, which
   * has none, could not connect to its own client port; logged as a warning).
   *
   * @param trust the CA file the gateway trusts for the node's client port and, in a cluster, for
   *     the leader it follows: the members' CA ({@code --tls-peer-ca}) if given, else the node's
   *     own certificate file; ignored without TLS
   * @throws io.semafor.server.ListenFailed naming the HTTP port if it cannot be bound
   * @throws IllegalArgumentException naming --http-port if the derived port is past 65535
   */
  public @Nullable HttpGateway start(SemaforServer server, @Nullable Path trust, HttpConfig config)
      throws InterruptedException {
    int listen = port(server.config().port());
    if (listen < 0) {
      return null;
    }
    ServerTls tls = server.config().tls();
    TlsConfig upstream = null;
    if (tls != null) {
      if (tls.clientAuth() == ServerTls.ClientAuth.REQUIRE) {
        log.warn(
            "the HTTP API is off: the server requires client certificates (--tls-client-ca) and"
                + " the API, which connects to this node's client port, has none; use"
                + " --tls-client-auth optional to serve it (callers then authenticate with bearer"
                + " tokens), or --http-port -1 to silence this");
        return null;
      }
      upstream =
          TlsConfig.builder()
              .trustedCa(trust != null ? trust : tls.certFile())
              .hostnameVerification(false) // the trust is this node's certificate or its members'
              .build();
    }
    return HttpGateway.start(server, config.withPort(listen), upstream);
  }
}
