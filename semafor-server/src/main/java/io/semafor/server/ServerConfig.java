package io.semafor.server;

import io.semafor.core.Limits;
import io.semafor.protocol.Frames;
import io.semafor.server.options.Durations;
import io.semafor.server.security.Security;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a server runs. Built with {@link #builder()}, validated once by {@link Builder#build()}
 * (errors name the setting, the bound and the value), then immutable and thread-safe.
 */
public final class ServerConfig {
  private final String host;
  private final int port;
  private final Duration defaultSessionTtl;
  private final Duration minSessionTtl;
  private final Duration maxSessionTtl;
  private final int maxFrameBytes;
  private final int ioThreads;
  private final boolean nativeTransport;
  private final Limits limits;
  private final int adminPort;
  private final int maxSemaphoreSeries;
  private final Security security;
  private final boolean insecure;
  private final boolean openMetrics;
  private final @Nullable ServerTls tls;
  private final ClientLimits clientLimits;

  private ServerConfig(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.defaultSessionTtl = b.defaultSessionTtl;
    this.minSessionTtl = b.minSessionTtl;
    this.maxSessionTtl = b.maxSessionTtl;
    this.maxFrameBytes = b.maxFrameBytes;
    this.ioThreads = b.ioThreads;
    this.nativeTransport = b.nativeTransport;
    this.limits = b.limits;
    this.adminPort = b.adminPort;
    this.maxSemaphoreSeries = b.maxSemaphoreSeries;
    this.security = b.security;
    this.insecure = b.insecure;
    this.openMetrics = b.openMetrics;
    this.tls = b.tls;
    this.clientLimits = b.clientLimits;
  }

  /** A builder with the defaults: 127.0.0.1:7400, sessions of 10 s, 1 MiB frames. */
  public static Builder builder() {
    return new Builder();
  }

  /** The address to listen on; default {@code 127.0.0.1}. */
  public String host() {
    return host;
  }

  /** The port to listen on; default 7400; 0 picks a free one. */
  public int port() {
    return port;
  }

  /** The TTL of a session whose client does not ask for one; default 10 s. */
  public Duration defaultSessionTtl() {
    return defaultSessionTtl;
  }

  /** The shortest TTL a client may ask for; default 100 ms. */
  public Duration minSessionTtl() {
    return minSessionTtl;
  }

  /** The longest TTL a client may ask for; default 1 h. */
  public Duration maxSessionTtl() {
    return maxSessionTtl;
  }

  /**
   * The largest frame accepted; larger ones close the connection. Default 1 MiB
   * (docs/semantics.md#limits).
   */
  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  /** Threads serving connections; default the number of processors. */
  public int ioThreads() {
    return ioThreads;
  }

  /** Whether to use Linux epoll when available (default), else Java NIO. */
  public boolean nativeTransport() {
    return nativeTransport;
  }

  /** The state machine's limits (docs/semantics.md#limits). */
  public Limits limits() {
    return limits;
  }

  /**
   * The port of the admin HTTP endpoint ({@code /metrics}, {@code /health}) on the same host; -1
   * (the builder's default) runs none, 0 picks a free port. {@code semafor server} uses 7401.
   */
  public int adminPort() {
    return adminPort;
  }

  /** Semaphores that get their own metric series; the rest are summed. Default 1000. */
  public int maxSemaphoreSeries() {
    return maxSemaphoreSeries;
  }

  /**
   * Who may do what (docs/security.md): the auth file's tokens and rules, reloadable; by default
   * none, so everyone is anonymous and allowed everything.
   */
  public Security security() {
    return security;
  }

  /**
   * Whether the operator allowed listening on a non-loopback address without authentication ({@code
   * --insecure}); otherwise the server refuses to (docs/security.md#safe-defaults).
   */
  public boolean insecure() {
    return insecure;
  }

  /**
   * Whether the admin port serves {@code /metrics} without credentials when the server
   * authenticates (for a scraper that cannot send a token); default false.
   */
  public boolean openMetrics() {
    return openMetrics;
  }

  /**
   * TLS on the client and admin ports (the same certificate), or null (the default) for plain TCP
   * and HTTP.
   */
  public @Nullable ServerTls tls() {
    return tls;
  }

  /**
   * What one client may cost this node: connections, sessions per client, timeouts, buffered bytes
   * (docs/security-limits.md).
   */
  public ClientLimits clientLimits() {
    return clientLimits;
  }

  /** Collects settings; not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 7400;
    private Duration defaultSessionTtl = Duration.ofSeconds(10);
    private Duration minSessionTtl = Duration.ofMillis(100);
    private Duration maxSessionTtl = Duration.ofHours(1);
    private int maxFrameBytes = Frames.DEFAULT_MAX_FRAME_BYTES;
    private int ioThreads = Runtime.getRuntime().availableProcessors();
    private boolean nativeTransport = true;
    private Limits limits = Limits.DEFAULT;
    private int adminPort = -1;
    private int maxSemaphoreSeries = 1000;
    private ClientLimits clientLimits = ClientLimits.DEFAULT;
    private Security security = Security.open();
    private boolean insecure;
    private boolean openMetrics;
    private @Nullable ServerTls tls;

    private Builder() {}

    public Builder openMetrics(boolean value) {
      openMetrics = value;
      return this;
    }

    public Builder security(Security value) {
      security = value;
      return this;
    }

    public Builder insecure(boolean value) {
      insecure = value;
      return this;
    }

    /** TLS on the client and admin ports; null for none. */
    public Builder tls(@Nullable ServerTls value) {
      tls = value;
      return this;
    }

    public Builder clientLimits(ClientLimits value) {
      clientLimits = value;
      return this;
    }

    public Builder adminPort(int value) {
      adminPort = value;
      return this;
    }

    public Builder maxSemaphoreSeries(int value) {
      maxSemaphoreSeries = value;
      return this;
    }

    public Builder host(String value) {
      host = value;
      return this;
    }

    public Builder port(int value) {
      port = value;
      return this;
    }

    public Builder defaultSessionTtl(Duration value) {
      defaultSessionTtl = value;
      return this;
    }

    public Builder minSessionTtl(Duration value) {
      minSessionTtl = value;
      return this;
    }

    public Builder maxSessionTtl(Duration value) {
      maxSessionTtl = value;
      return this;
    }

    public Builder maxFrameBytes(int value) {
      maxFrameBytes = value;
      return this;
    }

    public Builder ioThreads(int value) {
      ioThreads = value;
      return this;
    }

    public Builder nativeTransport(boolean value) {
      nativeTransport = value;
      return this;
    }

    public Builder limits(Limits value) {
      limits = value;
      return this;
    }

    /**
     * Checks every setting.
     *
     * @throws IllegalArgumentException naming the first setting out of range, its bound and value
     */
    public ServerConfig build() {
      if (host.isBlank()) {
        throw new IllegalArgumentException("host is blank");
      }
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port outside 0..65535: " + port);
      }
      if (minSessionTtl.isNegative() || minSessionTtl.isZero()) {
        throw new IllegalArgumentException(
            "minSessionTtl <= 0: " + Durations.format(minSessionTtl));
      }
      if (maxSessionTtl.compareTo(minSessionTtl) < 0) {
        throw new IllegalArgumentException(
            "maxSessionTtl < minSessionTtl ("
                + Durations.format(minSessionTtl)
                + "): "
                + Durations.format(maxSessionTtl));
      }
      if (defaultSessionTtl.compareTo(minSessionTtl) < 0
          || defaultSessionTtl.compareTo(maxSessionTtl) > 0) {
        throw new IllegalArgumentException(
            "defaultSessionTtl outside "
                + Durations.format(minSessionTtl)
                + ".."
                + Durations.format(maxSessionTtl)
                + ": "
                + Durations.format(defaultSessionTtl));
      }
      if (maxFrameBytes < 1024) {
        throw new IllegalArgumentException("maxFrameBytes < 1024: " + maxFrameBytes);
      }
      if (adminPort < -1 || adminPort > 65_535) {
        throw new IllegalArgumentException("adminPort outside -1..65535: " + adminPort);
      }
      if (maxSemaphoreSeries < 0) {
        throw new IllegalArgumentException("maxSemaphoreSeries < 0: " + maxSemaphoreSeries);
      }
      if (ioThreads < 1) {
        throw new IllegalArgumentException("ioThreads < 1: " + ioThreads);
      }
      return new ServerConfig(this);
    }
  }
}
