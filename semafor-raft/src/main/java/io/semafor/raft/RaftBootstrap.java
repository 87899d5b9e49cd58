package io.semafor.raft;

import io.semafor.protocol.tls.NamedPeerTrustManager;
import io.semafor.protocol.tls.TlsMaterial;
import io.semafor.replication.ClusterSpec;
import io.semafor.replication.PeerTls;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ForkJoinPool;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starting a node's Ratis member: the group it starts with (or none, when it joins), Ratis's
 * parameters (the peers' TLS), the server on its log, and the repairs a log needs before it serves.
 * Static functions only.
 */
final class RaftBootstrap {
  private static final Logger log = LoggerFactory.getLogger(RaftBootstrap.class);

  private RaftBootstrap() {}

  /** A member built and not yet started: its server, and the group it starts with. */
  record Built(RaftServer server, RaftGroup group) {}

  /**
   * Builds the server of the node {@code config} describes, on its data directory: a new log
   * (formatted) if there is none, else the log there. It serves nothing until {@link #start}.
   *
   * @throws IOException if the data directory cannot be made or the server built
   */
  static Built build(
      ClusterSpec config, Parameters parameters, SemaforStateMachine<?, ?, ?> stateMachine)
      throws IOException {
    Files.createDirectories(config.dataDir());
    boolean existing =
        Files.exists(config.dataDir().resolve(RaftReplicator.GROUP_ID.getUuid().toString()));
    // a joining node knows no members until the cluster adds it; one with a log reads them there
    RaftGroup group =
        config.join() && !existing ? RaftGroup.valueOf(RaftReplicator.GROUP_ID) : group(config);
    RaftServer server =
        RaftServer.newBuilder()
            .setServerId(RaftPeerId.valueOf(config.nodeId()))
            .setGroup(group)
            .setProperties(RatisProperties.of(config))
            .setParameters(parameters)
            .setStateMachine(stateMachine)
            .setOption(
                existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
            .build();
    return new Built(server, group);
  }

  /**
   * Starts a built member: opens its log, binds its Raft port, and returns its division of the
   * group once any gap below its snapshot is closed.
   *
   * @throws IOException if the log cannot be opened or the Raft port bound
   */
  static RaftServer.Division start(Built built) throws IOException {
    built.server().start();
    RaftServer.Division division = built.server().getDivision(RaftReplicator.GROUP_ID);
    closeGapBelowSnapshot(division);
    return division;
  }

  /**
   * Readies the JVM for a Ratis member, before anything else of it: keeps Ratis from ending the
   * process, and warns if the common fork-join pool is too small.
   */
  static void prepareJvm() {
    // Ratis ends the whole JVM (System.exit(1)) when its gRPC server cannot bind the Raft port;
    // this makes it throw instead, so the failure reaches the caller as any failed start does
    // (found when a test cluster's port was taken between choosing and binding it: the test JVM
    // exited). A process that embeds a node is not Ratis's to end.
    org.apache.ratis.util.ExitUtils.disableSystemExit();
    warnIfCommonPoolIsSmall();
  }

  private static void warnIfCommonPoolIsSmall() {
    if (ForkJoinPool.getCommonPoolParallelism() < 2) {
      log.warn(
          "the common fork-join pool has parallelism {}: Ratis will start a thread for every entry"
              + " a follower appends; start the JVM with"
              + " -Djava.util.concurrent.ForkJoinPool.common.parallelism=2 (semafor server does)",
          ForkJoinPool.getCommonPoolParallelism());
    }
  }

  /**
   * Drops the log of a member that starts with its last entry below its own snapshot (decision
   * 0038): a log cut at a bad record can end there, since the snapshot taken when the node last
   * stopped covers entries the cut removed. Ratis warns ("End log index 52 is smaller than last
   * index in snapshot 55") and goes on with the gap, then refuses every entry the leader sends
   * ("gap between entries 56 and 52"): the node never applies another write. Every entry the log
   * still holds is in the snapshot, so Ratis's own step after an installed snapshot applies: the
   * log is purged up to it and starts after it.
   */
  private static void closeGapBelowSnapshot(RaftServer.Division division) {
    SnapshotInfo snapshot = division.getStateMachine().getLatestSnapshot();
    TermIndex last = division.getRaftLog().getLastEntryTermIndex();
    if (snapshot == null || last == null || last.getIndex() >= snapshot.getIndex()) {
      return;
    }
    log.warn(
        "the log of {} ends at {}, below its snapshot at {} (cut at a bad record): starting it"
            + " after the snapshot",
        division.getId(),
        last.getIndex(),
        snapshot.getIndex());
    division.getRaftLog().onSnapshotInstalled(snapshot.getIndex()).join();
  }

  /**
   * The group's member on this server, which takes requests directly. The server itself also takes
   * them, but hands each to a pool thread and blocks until it is appended; a Ratis version whose
   * member no longer takes requests falls back to that.
   */
  static RaftClientAsynchronousProtocol localMember(
      RaftServer server, RaftServer.Division division) {
    return division instanceof RaftClientAsynchronousProtocol direct ? direct : server;
  }

  /**
   * Ratis's parameters with the peers' TLS: one config serves the server's ports and the clients it
   * calls other members with (Ratis falls back to {@code GrpcConfigKeys.TLS} for each). The key and
   * trust managers are ours, not Ratis's PEM reading, so that a peer's certificate is checked for
   * its name as well as its chain ({@link NamedPeerTrustManager}).
   *
   * @throws IllegalArgumentException if a PEM file cannot be read (the command line checked them)
   */
  static Parameters parameters(@Nullable PeerTls tls) {
    Parameters parameters = new Parameters();
    if (tls != null) {
      TlsMaterial material = TlsMaterial.read(tls.cert(), tls.key(), tls.ca());
      KeyManager[] keys = Objects.requireNonNull(material.keyManagers());
      TrustManager[] trusts = Objects.requireNonNull(material.trustManagers());
      TrustManager trust = trusts[0];
      if (!tls.names().isEmpty()) {
        trust = new NamedPeerTrustManager((X509ExtendedTrustManager) trust, tls.names());
      }
      GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(keys[0], trust, true));
    }
    return parameters;
  }

  /** The group of the peers {@code config} names. */
  static RaftGroup group(ClusterSpec config) {
    List<RaftPeer> peers = new ArrayList<>();
    for (GroupMember p : config.members()) {
      peers.add(raftPeer(p));
    }
    return RaftGroup.valueOf(RaftReplicator.GROUP_ID, peers);
  }

  /**
   * A member as Ratis knows it. Its client address rides in the data-stream address, a field Ratis
   * leaves alone unless its data-stream transport is configured (it is not here), so the replicated
   * configuration itself tells every member where to send a member's clients; Ratis's own client
   * address field would redirect Ratis's clients.
   */
  static RaftPeer raftPeer(GroupMember p) {
    return RaftPeer.newBuilder()
        .setId(p.id())
        .setAddress(p.raftAddress())
        .setDataStreamAddress(p.clientAddress())
        .build();
  }
}
