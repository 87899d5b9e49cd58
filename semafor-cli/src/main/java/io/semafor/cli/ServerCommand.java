package io.semafor.cli;

import io.semafor.http.HttpConfig;
import io.semafor.http.HttpOptions;
import io.semafor.replication.ClusterSpec;
import io.semafor.replication.PeerTls;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.replication.ReplicatorProvider;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import io.semafor.server.Logging;
import io.semafor.server.Main;
import io.semafor.server.ServerConfig;
import io.semafor.server.options.Durations;
import io.semafor.server.options.ServerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "server",
    description = {
      "Run a server in this process until Ctrl-C: a single node, or a cluster node.",
      "Single node (default): state in memory, no external service. With --data-dir alone: a"
          + " durable single node, a one-member cluster that keeps its state in DIR (Raft port"
          + " --port + 100). Cluster node: give --node-id, --peers and --data-dir; the node"
          + " listens on its own client and Raft ports from --peers. Prometheus metrics on"
          + " http://HOST:ADMIN_PORT/metrics, health on /health.",
      "Every option can also be set as SEMAFOR_<OPTION> in the environment or in --config FILE."
    },
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    sortOptions = false)
final class ServerCommand implements Callable<Integer> {
  @Mixin ServerOptions options = new ServerOptions();

  @Mixin HttpOptions http = new HttpOptions();

  @Option(
      names = "--node-id",
      paramLabel = "ID",
      description =
          "This node's id in --peers (makes this a cluster node); with --data-dir alone, the"
              + " durable single node's id (default "
              + SingleMember.DEFAULT_ID
              + ").")
  @Nullable String nodeId;

  @Option(
      names = "--peers",
      paramLabel = "ID=HOST:CLIENT_PORT:RAFT_PORT,...",
      description = "Every member of the cluster, this node included.")
  @Nullable String peers;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description =
          "Where this node keeps its Raft log and snapshots. Alone (without --peers): a durable"
              + " single node, a one-member cluster at HOST:PORT with its Raft port at PORT + 100.")
  @Nullable Path dataDir;

  @Option(
      names = "--join",
      description =
          "Join a running cluster instead of forming one: start with no members and wait for"
              + " `semafor cluster add` (--peers then needs only this node).")
  boolean join;

  @Option(
      names = "--election-timeout",
      paramLabel = "MIN-MAX",
      defaultValue = "300ms-600ms",
      description =
          "A follower that hears nothing from the leader for a random time in this range stands"
              + " for election (default ${DEFAULT-VALUE}). Shorter fails over sooner; longer"
              + " leaves more CPU to commands (docs/cluster.md).")
  String electionTimeout = "300ms-600ms";

  @Option(
      names = "--durability",
      paramLabel = "fsync|replicated",
      defaultValue = "fsync",
      description =
          "fsync: acknowledged once on a majority's disk (default; on a durable single node,"
              + " on its disk); replicated: once in a majority's memory (survives any minority"
              + " failing; on a single node, written to the system: survives the process, not"
              + " the machine).")
  String durability = "fsync";

  @Option(
      names = "--replicator",
      paramLabel = "microraft|ratis",
      description =
          "Cluster node: the Raft library the cluster replicates on, by name: microraft (the"
              + " default: one thread per member, decision 0046) or ratis (Apache Ratis); any"
              + " replicator on the class path is found by its name. Every member of a cluster"
              + " runs the same one; a data directory is for the one that made it.")
  @Nullable String replicator;

  @Option(
      names = "--raft-property",
      paramLabel = "KEY=VALUE",
      split = ",",
      description =
          "Cluster node: tuning of the replicator, over Semafor's own; repeat it or separate pairs"
              + " with commas (docs/cluster.md lists what Semafor sets and why). For microraft:"
              + " microraft.entries-in-flight, microraft.heartbeat-period-ms,"
              + " microraft.snapshot-every. For ratis: a raw Apache Ratis property. A key the"
              + " replicator does not read, or one that another option sets, is refused.")
  Map<String, String> raftProperties = new LinkedHashMap<>();

  @Option(
      names = "--restore",
      paramLabel = "FILE",
      description =
          "Single node: start from the state in FILE (from `semafor snapshot save`) instead of"
              + " empty. A cluster node is seeded with `semafor snapshot restore` instead.")
  @Nullable Path restore;

  @Override
  public Integer call() throws InterruptedException {
    Logging.configure(options.logFormat());
    boolean single = nodeId == null && peers == null && dataDir == null && !join;
    options.checkPeerOptions(!single);
    if (single && !raftProperties.isEmpty()) {
      throw usage(
          "--raft-property: only a cluster node (--node-id, --peers, --data-dir) runs Raft");
    }
    if (single && replicator != null) {
      throw usage("--replicator: only a cluster node (--node-id, --peers, --data-dir) replicates");
    }
    HttpConfig httpConfig = httpConfig();
    Main.CompanionStarter api = server -> http.start(server, options.tlsPeerCa(), httpConfig);
    if (single) {
      ServerConfig config = options.config(options.host(), options.port());
      checked(() -> http.port(config.port()));
      if (restore == null) {
        Main.run(config, ReplicatorFactory.LOCAL, api);
      } else {
        SnapshotFile.Loaded loaded = SnapshotCommand.load(restore);
        Main.run(config, ReplicatorFactory.restoring(loaded.machine()), api);
      }
      return ExitCodes.OK;
    }
    SingleMember implied = impliedMember();
    if (restore != null) {
      throw usage(
          "--restore: a node with --data-dir starts from it; seed it with `semafor snapshot"
              + " restore FILE --data-dir DIR"
              + (implied == null ? "" : " --node-id " + implied.id() + " --peers " + implied)
              + "` first");
    }
    ReplicatorProvider provider = provider();
    ClusterSpec cluster = cluster(implied);
    GroupMember self = cluster.self();
    ServerConfig config = options.config(self.host(), self.clientPort());
    checked(() -> http.port(config.port()));
    PeerTls peerTls = peerTls(implied != null);
    if (peerTls != null) {
      cluster = cluster.withTls(peerTls);
    }
    ReplicatorFactory factory;
    try {
      factory = provider.factory(cluster);
    } catch (IllegalArgumentException e) {
      throw usage(String.valueOf(e.getMessage()).replaceFirst("^raftProperty:", "--raft-property"));
    }
    Main.run(config, factory, api);
    return ExitCodes.OK;
  }

  /** The replicator {@code --replicator} names, found on the class path (the default if none). */
  private ReplicatorProvider provider() {
    try {
      return ReplicatorProvider.named(replicator == null ? ReplicatorProvider.DEFAULT : replicator);
    } catch (IllegalArgumentException e) {
      throw usage("--" + e.getMessage());
    }
  }

  /** The HTTP API's settings ({@code --http-*}), checked before anything starts. */
  private HttpConfig httpConfig() {
    return checked(http::config);
  }

  /** {@code setting}'s value; its IllegalArgumentException as a usage error naming the option. */
  private <T> T checked(java.util.function.Supplier<T> setting) {
    try {
      return setting.get();
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      int end = message.indexOf(' ');
      throw usage(
          io.semafor.server.options.ServerOptions.optionNamed(message.substring(0, end))
              + message.substring(end));
    }
  }

  /** Where the server listens, for messages: this node's address, or "this node's ports". */
  String listenAddress() {
    return peers == null ? options.host() + ":" + options.port() : "this node's ports";
  }

  /**
   * The one member of a durable single node ({@code --data-dir} without {@code --peers} or {@code
   * --join}), or null for a cluster node.
   *
   * @throws picocli.CommandLine.ParameterException if {@code --port} gives it no fixed address
   */
  private @Nullable SingleMember impliedMember() {
    if (peers != null || join || dataDir == null) {
      return null;
    }
    try {
      return SingleMember.of(
          nodeId == null ? SingleMember.DEFAULT_ID : nodeId, options.host(), options.port());
    } catch (IllegalArgumentException e) {
      throw usage(String.valueOf(e.getMessage()));
    }
  }

  /** What sets the client port, for messages: {@code --port}, or a cluster node's --peers. */
  String clientPortOption() {
    return peers == null ? "--port" : "its client port in --peers";
  }

  /**
   * Mutual TLS between the members with this node's certificate, when it has one (the server's
   * options checked its files already); null for plaintext Raft.
   */
  private @Nullable PeerTls peerTls(boolean single) {
    Path cert = options.tlsCert();
    Path key = options.tlsKey();
    if (cert == null || key == null) {
      return null;
    }
    Path ca = options.tlsPeerCa();
    if (ca == null) {
      throw usage(
          single
              ? "--tls-peer-ca: a durable single node with --tls-cert serves TLS on its Raft port"
                  + " too (--port + 100), where members would connect: give the CA that signs"
                  + " the members' certificates (its own certificate's CA will do)"
              : "--tls-peer-ca: a cluster node with --tls-cert needs the CA of its peers'"
                  + " certificates");
    }
    try {
      io.semafor.protocol.tls.PemFiles.certificates(ca);
    } catch (IllegalArgumentException e) {
      throw usage("--tls-peer-ca: " + e.getMessage());
    }
    Path clientCa = options.tlsClientCa();
    if (clientCa != null && shareACertificate(ca, clientCa)) {
      throw usage(
          "--tls-peer-ca "
              + ca
              + ": holds a CA of --tls-client-ca too, so a client certificate could pass for a"
              + " member; sign the members' certificates with a CA of their own"
              + " (docs/security.md)");
    }
    return new PeerTls(cert, key, ca, options.tlsPeerNames());
  }

  /**
   * Whether a certificate of one CA file would pass for one of the other's: the same CA (its
   * subject and key, so a re-issued copy counts), or a CA of one file issued by a CA of the other
   * (a hierarchy: a client presenting its chain through that intermediate would pass as a member).
   */
  private static boolean shareACertificate(Path a, Path b) {
    try {
      java.util.List<java.security.cert.X509Certificate> first =
          io.semafor.protocol.tls.PemFiles.certificates(a);
      java.util.List<java.security.cert.X509Certificate> second =
          io.semafor.protocol.tls.PemFiles.certificates(b);
      for (java.security.cert.X509Certificate x : first) {
        for (java.security.cert.X509Certificate y : second) {
          if (sameCa(x, y) || issued(x, y) || issued(y, x)) {
            return true;
          }
        }
      }
      return false;
    } catch (IllegalArgumentException e) {
      return false; // an unreadable client CA is reported by its own check
    }
  }

  private static boolean sameCa(
      java.security.cert.X509Certificate x, java.security.cert.X509Certificate y) {
    return x.getSubjectX500Principal().equals(y.getSubjectX500Principal())
        && x.getPublicKey().equals(y.getPublicKey());
  }

  /** Whether {@code issuer} signed {@code cert}. */
  private static boolean issued(
      java.security.cert.X509Certificate issuer, java.security.cert.X509Certificate cert) {
    if (!cert.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
      return false;
    }
    try {
      cert.verify(issuer.getPublicKey());
      return true;
    } catch (java.security.GeneralSecurityException e) {
      return false;
    }
  }

  /**
   * The cluster this node belongs to, from its options: members, data directory, durability,
   * election timeouts, {@code --join} and the replicator's tuning ({@code --raft-property}, which
   * the replicator checks).
   */
  private ClusterSpec cluster(@Nullable SingleMember implied) {
    if (dataDir == null || (implied == null && (nodeId == null || peers == null))) {
      throw usage(
          "a cluster node needs --node-id, --peers and --data-dir together (--data-dir alone runs"
              + " a durable single node)");
    }
    ClusterSpec.Durability d =
        switch (durability.toLowerCase(Locale.ROOT)) {
          case "fsync" -> ClusterSpec.Durability.FSYNC;
          case "replicated" -> ClusterSpec.Durability.REPLICATED;
          default ->
              throw usage("--durability: '" + durability + "' is neither fsync nor replicated");
        };
    try {
      ClusterSpec config =
          implied != null
              ? ClusterSpec.of(implied.id(), java.util.List.of(implied.member()), dataDir, d)
              : ClusterSpec.of(
                  java.util.Objects.requireNonNull(nodeId),
                  ClusterSpec.parseMembers(java.util.Objects.requireNonNull(peers)),
                  dataDir,
                  d);
      String[] range = electionTimeout.split("-", -1);
      if (range.length != 2) {
        throw usage(
            "--election-timeout: '" + electionTimeout + "' is not MIN-MAX, e.g. 300ms-600ms");
      }
      Duration min;
      Duration max;
      try {
        min = Durations.parse(range[0]);
        max = Durations.parse(range[1]);
      } catch (picocli.CommandLine.TypeConversionException e) {
        throw usage("--election-timeout: " + e.getMessage());
      }
      if (min == null || max == null) {
        throw usage("--election-timeout: '" + electionTimeout + "' must be finite");
      }
      try {
        config = config.withElectionTimeouts(min, max);
      } catch (IllegalArgumentException e) {
        throw usage(
            String.valueOf(e.getMessage())
                .replaceFirst("^electionTimeout:", "--election-timeout:"));
      }
      try {
        config = config.withProperties(raftProperties);
      } catch (IllegalArgumentException e) {
        throw usage(
            String.valueOf(e.getMessage()).replaceFirst("^raftProperty:", "--raft-property"));
      }
      return join ? config.joining() : config;
    } catch (IllegalArgumentException e) {
      throw usage(String.valueOf(e.getMessage()));
    }
  }

  private picocli.CommandLine.ParameterException usage(String message) {
    return new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), message);
  }
}
