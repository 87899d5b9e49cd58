package io.semafor.server.options;

import io.semafor.core.Limits;
import io.semafor.protocol.Frames;
import io.semafor.server.ClientLimits;
import io.semafor.server.Logging;
import io.semafor.server.ServerConfig;
import io.semafor.server.ServerTls;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options of a server, defined once: a picocli mixin that {@code java -jar semafor-server.jar}
 * and {@code semafor server} both include, so the two cannot drift. Every limit of the semantics is
 * here. Each option can also come from the environment ({@code --max-sessions} from {@code
 * SEMAFOR_MAX_SESSIONS}) or from the {@code --config} file (key {@code max-sessions}); see {@link
 * ConfigDefaults}.
 *
 * <p>Filled in by picocli on the thread that parses; not thread-safe.
 */
public final class ServerOptions {
  @Spec(Spec.Target.MIXEE)
  @Nullable CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "Read settings from FILE: one `option = value` per line, keys are the long options"
              + " without dashes (port = 7400). Command-line options win over SEMAFOR_*"
              + " environment variables, which win over the file. Also $SEMAFOR_CONFIG.")
  @Nullable Path config;

  @Option(
      names = "--host",
      paramLabel = "H",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default ${DEFAULT-VALUE}).")
  String host = "127.0.0.1";

  @Option(
      names = "--port",
      paramLabel = "P",
      defaultValue = "7400",
      description = "Client port (default ${DEFAULT-VALUE}; 0: any free port).")
  int port = 7400;

  @Option(
      names = "--admin-port",
      paramLabel = "A",
      defaultValue = "7401",
      description = "Metrics and health port (default ${DEFAULT-VALUE}; -1: none; 0: any).")
  int adminPort = 7401;

  @Option(
      names = "--auth-file",
      paramLabel = "FILE",
      description =
          "Authenticate every client and check its permissions against FILE: tokens and"
              + " rules (principal, name prefix, permissions), JSON (docs/security.md)."
              + " Reloaded by `semafor auth reload`.")
  @Nullable Path authFile;

  @Option(
      names = "--insecure",
      description =
          "Allow listening on an address other than loopback without authentication"
              + " (docs/security.md#safe-defaults). Logged as a warning.")
  boolean insecure;

  @Option(
      names = "--open-metrics",
      description =
          "Serve /metrics on the admin port without credentials when --auth-file is set (for a"
              + " scraper that cannot send a token).")
  boolean openMetrics;

  @Option(
      names = "--session-ttl",
      paramLabel = "D",
      defaultValue = "10s",
      converter = Durations.class,
      description = "TTL of sessions that do not ask for one (default ${DEFAULT-VALUE}).")
  Duration sessionTtl = Duration.ofSeconds(10);

  @Option(
      names = "--min-session-ttl",
      paramLabel = "D",
      defaultValue = "100ms",
      converter = Durations.class,
      description = "Shortest TTL a client may ask for (default ${DEFAULT-VALUE}).")
  Duration minSessionTtl = Duration.ofMillis(100);

  @Option(
      names = "--max-session-ttl",
      paramLabel = "D",
      defaultValue = "1h",
      converter = Durations.class,
      description = "Longest TTL a client may ask for (default ${DEFAULT-VALUE}).")
  Duration maxSessionTtl = Duration.ofHours(1);

  @Option(
      names = "--log-format",
      paramLabel = "text|json",
      defaultValue = "text",
      converter = LogFormats.class,
      description =
          "Log lines on stderr as dated text (default) or one JSON object a line"
              + " (docs/server.md).")
  Logging.Format logFormat = Logging.Format.TEXT;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "Network threads (default: one per processor).")
  int ioThreads = Runtime.getRuntime().availableProcessors();

  @Option(
      names = "--max-semaphore-series",
      paramLabel = "N",
      defaultValue = "1000",
      description =
          "Semaphores with their own metric series; the rest are summed as _other"
              + " (default ${DEFAULT-VALUE}).")
  int maxSemaphoreSeries = 1000;

  @Option(
      names = "--max-frame-bytes",
      paramLabel = "N",
      defaultValue = "" + Frames.DEFAULT_MAX_FRAME_BYTES,
      description =
          "Largest frame a client may send; a larger one closes its connection"
              + " (default ${DEFAULT-VALUE}).")
  int maxFrameBytes = Frames.DEFAULT_MAX_FRAME_BYTES;

  @Option(
      names = "--grants-per-command",
      paramLabel = "N",
      defaultValue = "128",
      description =
          "Most waiters one command serves; a change that serves more hands the rest out in"
              + " slices, other clients' requests in between (default ${DEFAULT-VALUE}).")
  int grantsPerCommand = 128;

  @Option(
      names = "--max-name-bytes",
      paramLabel = "N",
      defaultValue = "1024",
      description = "Longest semaphore name, in UTF-8 bytes (default ${DEFAULT-VALUE}).")
  int maxNameBytes = 1024;

  @Option(
      names = "--max-semaphores",
      paramLabel = "N",
      defaultValue = "" + Long.MAX_VALUE,
      description = "Most semaphores at once (default: no limit).")
  long maxSemaphores = Long.MAX_VALUE;

  @Option(
      names = "--max-sessions",
      paramLabel = "N",
      defaultValue = "100000",
      description = "Most sessions at once (default ${DEFAULT-VALUE}).")
  int maxSessions = 100_000;

  @Option(
      names = "--max-waiters-per-session",
      paramLabel = "N",
      defaultValue = "4096",
      description =
          "Most queued requests and WaitMany entries one session may have"
              + " (default ${DEFAULT-VALUE}).")
  int maxWaitersPerSession = 4096;

  @Option(
      names = "--max-wait-many-entries",
      paramLabel = "N",
      defaultValue = "4096",
      description = "Most semaphores in one WaitMany list (default ${DEFAULT-VALUE}).")
  int maxWaitManyEntries = 4096;

  @Option(
      names = "--max-semop-ops",
      paramLabel = "N",
      defaultValue = "500",
      description = "Most operations in one semop (default ${DEFAULT-VALUE}).")
  int maxSemopOps = 500;

  @Option(
      names = "--max-unacked-replies",
      paramLabel = "N",
      defaultValue = "65536",
      description =
          "Most replies a session may leave unacknowledged before its new requests are refused"
              + " (default ${DEFAULT-VALUE}).")
  int maxUnackedReplies = 65_536;

  @Option(
      names = "--max-slotted-capacity",
      paramLabel = "N",
      defaultValue = "65536",
      description =
          "Largest capacity whose permits carry slot numbers; above it a capacity is a"
              + " ceiling only (default ${DEFAULT-VALUE}).")
  int maxSlottedCapacity = 65_536;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description =
          "Serve TLS on every port (client, admin, Raft) with this PEM certificate chain, leaf"
              + " first (with --tls-key; docs/security-tls.md).")
  @Nullable Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description = "The private key of --tls-cert: PEM, unencrypted PKCS#8.")
  @Nullable Path tlsKey;

  @Option(
      names = "--tls-client-ca",
      paramLabel = "FILE",
      description =
          "Verify client certificates (client and admin ports) against the CA certificates in"
              + " this PEM file; clients then need one unless --tls-client-auth optional.")
  @Nullable Path tlsClientCa;

  @Option(
      names = "--tls-client-auth",
      paramLabel = "none|optional|require",
      converter = ClientAuths.class,
      description =
          "Whether clients must present a certificate: require (the default with"
              + " --tls-client-ca), optional, or none (the default without).")
  ServerTls.@Nullable ClientAuth tlsClientAuth;

  @Option(
      names = "--tls-peer-ca",
      paramLabel = "FILE",
      description =
          "Cluster node: the CA of the other members' certificates; Raft peers verify each"
              + " other with it both ways. It must not be the CA of --tls-client-ca: any holder"
              + " of a client certificate would pass for a member.")
  @Nullable Path tlsPeerCa;

  @Option(
      names = "--tls-peer-names",
      paramLabel = "NAME[,NAME...]",
      description =
          "Cluster node: the names a member's certificate must carry (its subject CN or a DNS"
              + " subject alternative name), comma-separated: the members' node names, or one name"
              + " every member's certificate carries. Default: any certificate from --tls-peer-ca.")
  @Nullable String tlsPeerNames;

  /** {@code none}, {@code optional} or {@code require}, in any case. */
  static final class ClientAuths implements CommandLine.ITypeConverter<ServerTls.ClientAuth> {
    @Override
    public ServerTls.ClientAuth convert(String value) {
      return switch (value.strip().toLowerCase(Locale.ROOT)) {
        case "none" -> ServerTls.ClientAuth.NONE;
        case "optional" -> ServerTls.ClientAuth.OPTIONAL;
        case "require" -> ServerTls.ClientAuth.REQUIRE;
        default ->
            throw new CommandLine.TypeConversionException(
                "'" + value + "' is none of none, optional, require");
      };
    }
  }

  @Option(
      names = "--max-connections",
      paramLabel = "N",
      defaultValue = "10000",
      description =
          "Most open client connections on this node; more are refused"
              + " (default ${DEFAULT-VALUE}).")
  int maxConnections = ClientLimits.DEFAULT.maxConnections();

  @Option(
      names = "--max-connections-per-client",
      paramLabel = "N",
      defaultValue = "1000",
      description = "Most open connections from one source address (default ${DEFAULT-VALUE}).")
  int maxConnectionsPerClient = ClientLimits.DEFAULT.maxConnectionsPerClient();

  @Option(
      names = "--max-sessions-per-client",
      paramLabel = "N",
      defaultValue = "1000",
      description =
          "Most live sessions of one principal (with --auth-file), else of one source"
              + " address, counted until they end or expire (default ${DEFAULT-VALUE}).")
  int maxSessionsPerClient = ClientLimits.DEFAULT.maxSessionsPerClient();

  @Option(
      names = "--hello-timeout",
      paramLabel = "D",
      defaultValue = "10s",
      converter = Durations.class,
      description =
          "A connection not welcomed into a session this long after connecting is closed"
              + " (default ${DEFAULT-VALUE}).")
  Duration helloTimeout = ClientLimits.DEFAULT.helloTimeout();

  @Option(
      names = "--frame-timeout",
      paramLabel = "D",
      defaultValue = "30s",
      converter = Durations.class,
      description =
          "A frame must arrive in full this soon after its first byte, or its connection is"
              + " closed (default ${DEFAULT-VALUE}).")
  Duration frameTimeout = ClientLimits.DEFAULT.frameTimeout();

  @Option(
      names = "--idle-timeout",
      paramLabel = "D",
      defaultValue = "60s",
      converter = Durations.class,
      description =
          "A connection without a session silent this long is closed; one with a session"
              + " lives as its session does (default ${DEFAULT-VALUE}).")
  Duration idleTimeout = ClientLimits.DEFAULT.idleTimeout();

  @Option(
      names = "--max-pending-frame-bytes",
      paramLabel = "N",
      defaultValue = "67108864",
      description =
          "Bytes of unfinished frames held for all connections together; the connection that"
              + " would go over is closed (default ${DEFAULT-VALUE}, 64 MiB).")
  long maxPendingFrameBytes = ClientLimits.DEFAULT.maxPendingFrameBytes();

  @Option(
      names = "--max-unread-bytes",
      paramLabel = "N",
      defaultValue = "8388608",
      description =
          "Bytes of replies queued for one connection whose client does not read them; over it"
              + " the connection is closed (default ${DEFAULT-VALUE}, 8 MiB).")
  long maxUnreadBytes = ClientLimits.DEFAULT.maxUnreadBytes();

  /** {@code text} or {@code json}, in any case. */
  static final class LogFormats implements CommandLine.ITypeConverter<Logging.Format> {
    @Override
    public Logging.Format convert(String value) {
      return switch (value.strip().toLowerCase(Locale.ROOT)) {
        case "text" -> Logging.Format.TEXT;
        case "json" -> Logging.Format.JSON;
        default ->
            throw new CommandLine.TypeConversionException(
                "'" + value + "' is neither text nor json");
      };
    }
  }

  /** Creates the mixin picocli fills in. */
  public ServerOptions() {}

  /** The address to listen on, as given. */
  public String host() {
    return host;
  }

  /** How the server's log lines look. */
  public Logging.Format logFormat() {
    return logFormat;
  }

  /** The client port, as given. */
  public int port() {
    return port;
  }

  /** The certificate chain file every port serves, or null for plain TCP. */
  public @Nullable Path tlsCert() {
    return tlsCert;
  }

  /** The key of {@link #tlsCert()}. */
  public @Nullable Path tlsKey() {
    return tlsKey;
  }

  /**
   * The CA file the Raft peers' certificates must lead to ({@code --tls-peer-ca}); null if not
   * given. Never the client CA by default: a CA that signs clients' certificates would make every
   * client a member.
   */
  public @Nullable Path tlsPeerCa() {
    return tlsPeerCa;
  }

  /**
   * The names a Raft peer's certificate must carry ({@code --tls-peer-names}), as given; empty if
   * the option is not given.
   *
   * @throws CommandLine.ParameterException if a name is blank
   */
  public List<String> tlsPeerNames() {
    String given = tlsPeerNames;
    if (given == null) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    for (String n : given.split(",", -1)) {
      if (n.isBlank()) {
        throw usage("--tls-peer-names: '" + given + "' has an empty name; give NAME[,NAME...]");
      }
      names.add(n.strip());
    }
    return List.copyOf(names);
  }

  /**
   * Refuses the options of TLS between Raft peers where there are no peers (a single node), or no
   * TLS for them to configure: silently ignored, they would let an operator believe the members
   * were checked.
   *
   * @param cluster whether this server is a cluster node
   * @throws CommandLine.ParameterException naming the option, if one is given where it means
   *     nothing
   */
  public void checkPeerOptions(boolean cluster) {
    String given =
        tlsPeerNames != null ? "--tls-peer-names" : tlsPeerCa != null ? "--tls-peer-ca" : null;
    if (given == null) {
      return;
    }
    if (!cluster) {
      throw usage(given + ": only a cluster node (--node-id, --peers) has peers to check");
    }
    if (tlsCert == null) {
      throw usage(
          given + ": needs --tls-cert and --tls-key: without them the peers speak plaintext");
    }
  }

  /** The CA file client certificates must lead to ({@code --tls-client-ca}); null if not given. */
  public @Nullable Path tlsClientCa() {
    return tlsClientCa;
  }

  /**
   * The server's TLS as given, read and checked, or null if {@code --tls-cert} is not given.
   *
   * @throws CommandLine.ParameterException naming the option whose file is wrong
   */
  public @Nullable ServerTls tls() {
    Path cert = tlsCert;
    Path key = tlsKey;
    if (cert == null && key == null) {
      if (tlsClientCa != null || tlsClientAuth != null) {
        throw usage(
            new IllegalArgumentException(
                (tlsClientCa != null ? "tlsClientCa" : "tlsClientAuth")
                    + ": needs --tls-cert and --tls-key (the server's own certificate)"));
      }
      return null;
    }
    if (cert == null || key == null) {
      throw usage(
          new IllegalArgumentException(
              (cert == null ? "tlsKey" : "tlsCert")
                  + ": needs "
                  + (cert == null ? "--tls-cert" : "--tls-key")
                  + " too"));
    }
    try {
      return ServerTls.load(cert, key, tlsClientCa, tlsClientAuth);
    } catch (IllegalArgumentException e) {
      throw usage(e);
    }
  }

  /**
   * The state machine's limits as given. Every member of a cluster must use the same ones, since
   * they decide which commands fail.
   *
   * @throws CommandLine.ParameterException naming the option whose value is out of range
   */
  public Limits limits() {
    try {
      return new Limits(
          maxNameBytes,
          maxSemaphores,
          maxSessions,
          maxWaitersPerSession,
          maxWaitManyEntries,
          maxSemopOps,
          maxUnackedReplies,
          maxSlottedCapacity,
          grantsPerCommand);
    } catch (IllegalArgumentException e) {
      throw usage(e);
    }
  }

  /**
   * The server's settings, listening on {@code listenHost:listenPort} (a cluster node listens on
   * its own address from {@code --peers}; a single node passes {@link #host()} and {@link
   * #port()}).
   *
   * @throws CommandLine.ParameterException naming the option whose value is out of range
   */
  public ServerConfig config(String listenHost, int listenPort) {
    Limits limits = limits();
    Security security = security();
    ServerTls tls = tls();
    String unsafe =
        SafeDefaults.refusal(listenHost, security.access().enforced(), tls != null, insecure);
    if (unsafe != null) {
      throw usage(unsafe);
    }
    try {
      ClientLimits clientLimits =
          new ClientLimits(
              maxConnections,
              maxConnectionsPerClient,
              maxSessionsPerClient,
              helloTimeout,
              frameTimeout,
              idleTimeout,
              maxPendingFrameBytes,
              maxUnreadBytes);
      return ServerConfig.builder()
          .host(listenHost)
          .port(listenPort)
          .adminPort(adminPort)
          .defaultSessionTtl(sessionTtl)
          .minSessionTtl(minSessionTtl)
          .maxSessionTtl(maxSessionTtl)
          .maxFrameBytes(maxFrameBytes)
          .ioThreads(ioThreads)
          .maxSemaphoreSeries(maxSemaphoreSeries)
          .limits(limits)
          .security(security)
          .insecure(insecure)
          .openMetrics(openMetrics)
          .tls(tls)
          .clientLimits(clientLimits)
          .build();
    } catch (IllegalArgumentException e) {
      throw usage(e);
    }
  }

  /** The auth file's rules, read now; none without {@code --auth-file}. */
  private Security security() {
    Path file = authFile;
    if (file == null) {
      return Security.open();
    }
    try {
      return Security.of(file);
    } catch (AuthFile.Invalid e) {
      throw usage("--auth-file " + e.getMessage());
    }
  }

  private CommandLine.ParameterException usage(String message) {
    CommandSpec mixee = spec;
    CommandLine line = mixee == null ? new CommandLine(this) : mixee.commandLine();
    return new CommandLine.ParameterException(line, message);
  }

  /**
   * A usage error for a setting refused by {@link ServerConfig} or {@link Limits}, whose messages
   * start with the setting's Java name: said with the option's name instead, so the user sees what
   * to change.
   */
  private CommandLine.ParameterException usage(IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    int end = message.indexOf(' ');
    String setting = end < 0 ? message : message.substring(0, end);
    String rest = end < 0 ? "" : message.substring(end);
    CommandSpec mixee = spec;
    CommandLine line = mixee == null ? new CommandLine(this) : mixee.commandLine();
    return new CommandLine.ParameterException(line, optionNamed(setting) + rest, e);
  }

  /** {@code maxSessionTtl} as its option {@code --max-session-ttl}. */
  public static String optionNamed(String setting) {
    if (setting.equals("defaultSessionTtl")) {
      return "--session-ttl";
    }
    StringBuilder option = new StringBuilder("--");
    for (int i = 0; i < setting.length(); i++) {
      char c = setting.charAt(i);
      if (Character.isUpperCase(c)) {
        option.append('-').append(Character.toLowerCase(c));
      } else {
        option.append(c);
      }
    }
    return option.toString().toLowerCase(Locale.ROOT);
  }
}
