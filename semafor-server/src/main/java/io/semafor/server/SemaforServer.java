package io.semafor.server;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.SemaphoreMachine;
import io.semafor.protocol.v1.Fatal;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.replication.Replicator;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.server.security.Access;
import io.semafor.server.security.AuthFile;
import io.semafor.server.wire.WireResults;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Semafor server: the state machine in memory behind a {@link LocalReplicator},
 * clients over TCP speaking {@code semafor.proto}. A restart forgets every semaphore, as IRIS does;
 * durable and replicated state is the Raft cluster's job.
 *
 * <p>{@link #start} binds and returns a running server; {@link #close} stops it gracefully: no new
 * connections, open ones closed, timers stopped, what was submitted applied. Thread-safe.
 */
public final class SemaforServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SemaforServer.class);

  private final ServerConfig config;
  private final Transport transport;
  private final EventLoopGroup acceptor;
  private final EventLoopGroup workers;
  private final ChannelGroup connections =
      new DefaultChannelGroup("semafor-connections", GlobalEventExecutor.INSTANCE);
  private final Timers timers;
  private final Sessions sessions;
  private final SessionQuota quota;
  private final ConnectionCaps caps;
  private final PendingFrameBudget pendingFrames;
  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final Channel listener;
  private final ServerMetrics metrics;
  private final @Nullable AdminServer admin;
  private final Edge edge;
  private final CompletableFuture<String> failure = new CompletableFuture<>();
  private volatile boolean closed;

  private SemaforServer(ServerConfig config, ReplicatorFactory replicators)
      throws InterruptedException {
    this.config = config;
    this.transport = Transport.choose(config.nativeTransport());
    AtomicReference<Replicator<CommandOrigin, ReadOrigin, PendingSnapshot>> target =
        new AtomicReference<>();
    this.timers =
        new Timers(
            key -> {
              Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> r = target.get();
              if (r != null && !closed) {
                r.submit(Edge.expiry(key), null);
              }
            });
    ClientLimits clientLimits = config.clientLimits();
    this.quota = new SessionQuota(clientLimits.maxSessionsPerClient());
    this.caps =
        new ConnectionCaps(clientLimits.maxConnections(), clientLimits.maxConnectionsPerClient());
    this.pendingFrames = new PendingFrameBudget(clientLimits.maxPendingFrameBytes());
    this.sessions = new Sessions(timers, new ListeningClock(), quota);
    this.metrics =
        new ServerMetrics(config.maxSemaphoreSeries(), sessions::count, connections::size);
    this.edge =
        new Edge(
            sessions,
            timers,
            metrics,
            this::dropClients,
            command -> proposeLater(target, command),
            failure::complete);
    SemaphoreMachine initial = new SemaphoreMachine(config.limits());
    edge.attach(initial);
    this.replicator = replicators.create(initial, edge);
    if (replicator instanceof MeterBinder binder) {
      // the seam for a replicator's own series (a Raft member's term, indexes, log sync time):
      // it registers them itself, so the server needs to know nothing of Raft
      binder.bindTo(metrics.registry());
    }
    target.set(replicator);
    io.micrometer.core.instrument.Gauge.builder("semafor_watches", edge::watchCount)
        .description("Watches running on this node (decision 0041)")
        .register(metrics.registry());
    sessions.replicator(replicator);
    NodeSessions nodeSessions = new NodeSessions(config, replicator, sessions, quota, caps, edge);
    io.semafor.server.session.SessionRules sessionRules = NodeSessions.rules(config);
    this.acceptor = transport.group(1, "semafor-accept");
    this.workers = transport.group(config.ioThreads(), "semafor-io");
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptor, workers)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(WRITE_LOW_WATER_BYTES, WRITE_HIGH_WATER_BYTES))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  @SuppressWarnings("FutureReturnValueIgnored") // listeners on the close future
                  protected void initChannel(SocketChannel ch) {
                    InetSocketAddress remote = ch.remoteAddress();
                    if (remote == null) { // the peer is gone already
                      ch.close();
                      return;
                    }
                    InetAddress from = remote.getAddress();
                    String refused = caps.admit(from);
                    if (refused != null) {
                      refuse(ch, config.tls(), refused);
                      return;
                    }
                    ch.closeFuture().addListener(closed -> caps.release(from));
                    connections.add(ch);
                    ServerTls tls = config.tls();
                    if (tls != null) {
                      // first: every byte in and out is TLS; the handler passes nothing on before
                      // the handshake, so no frame is read from a client that has not finished it
                      ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline()
                        .addLast("unread-cap", new UnreadCap(clientLimits.maxUnreadBytes()))
                        .addLast(
                            "frames-in",
                            new FrameCodec.Decoder(
                                config.maxFrameBytes(),
                                pendingFrames,
                                clientLimits.frameTimeout().toNanos()))
                        .addLast("frames-out", new FrameCodec.Encoder())
                        .addLast(
                            "connection",
                            new Connection(
                                replicator, sessions, nodeSessions, sessionRules, config, edge));
                  }
                });
    this.listener = bind(bootstrap);
    if (config.insecure()) {
      log.warn(
          "INSECURE: started with --insecure; whoever reaches {}:{} may read and change every"
              + " semaphore{}",
          config.host(),
          ((InetSocketAddress) listener.localAddress()).getPort(),
          config.tls() == null ? ", in plain text" : "");
    }
    this.admin = config.adminPort() < 0 ? null : startAdmin();
    long every = EdgeWatches.HEARTBEAT.toNanos();
    this.watchHeartbeat =
        workers.scheduleAtFixedRate(this::watchHeartbeat, every, every, TimeUnit.NANOSECONDS);
  }

  /** Tells the watches they are synced, if this node leads and any run (decision 0041). */
  private final io.netty.util.concurrent.ScheduledFuture<?> watchHeartbeat;

  private void watchHeartbeat() {
    if (closed || edge.watchCount() == 0 || !replicator.isLeader()) {
      return;
    }
    try {
      replicator.read(new io.semafor.core.Query.Barrier(), new EdgeWatches.Heartbeat());
    } catch (RuntimeException e) {
      log.debug("watch heartbeat not sent: {}", e.toString());
    }
  }

  /**
   * Replies queued for a connection past this stop it being read from until they drain below {@link
   * #WRITE_LOW_WATER_BYTES} (a client that does not read its replies cannot make the server queue
   * more of them by sending more): a little above a whole frame, so that one large reply to a
   * reading client does not pause it.
   */
  static final int WRITE_HIGH_WATER_BYTES = (1 << 20) + (64 << 10);

  /** Reading resumes once a paused connection's queue drains below this. */
  static final int WRITE_LOW_WATER_BYTES = 256 << 10;

  /**
   * Tells a connection over a cap why with a {@code Fatal} RESOURCE_EXHAUSTED, then closes it; it
   * is never read from.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  private static void refuse(SocketChannel ch, @Nullable ServerTls tls, String why) {
    log.debug("refusing connection {}: {}", ch, why);
    if (tls != null) {
      // said over TLS like everything else: the Fatal is sent once the handshake is done (it has
      // to be read for that; within the grace period below)
      ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
    } else {
      ch.config().setAutoRead(false);
    }
    ch.pipeline().addLast("frames-out", new FrameCodec.Encoder());
    ch.pipeline()
        .addLast(
            "refuse",
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(
                        ServerFrame.newBuilder()
                            .setFatal(
                                Fatal.newBuilder()
                                    .setFailure(
                                        WireResults.failure(ErrorCode.RESOURCE_EXHAUSTED, why)))
                            .build())
                    .addListener(ChannelFutureListener.CLOSE);
                ctx.executor()
                    .schedule(() -> ctx.close(), Connection.FATAL_GRACE_SECONDS, TimeUnit.SECONDS);
              }
            });
  }

  /**
   * Binds the client port.
   *
   * @throws ListenFailed naming the client port if it cannot be bound
   */
  private Channel bind(ServerBootstrap bootstrap) throws InterruptedException {
    try {
      return bootstrap.bind(config.host(), config.port()).sync().channel();
    } catch (Exception e) { // sync() rethrows the bind's own failure, an IOException undeclared
      IOException cause = ioCause(e);
      if (cause == null) {
        throw e;
      }
      throw new ListenFailed(ListenFailed.Port.CLIENT, config.host(), config.port(), cause);
    }
  }

  private static @Nullable IOException ioCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException io) {
        return io;
      }
    }
    return null;
  }

  private AdminServer startAdmin() {
    try {
      return new AdminServer(
          config.host(), config.adminPort(), config.tls(), metrics, this::read, this);
    } catch (ListenFailed e) {
      listener.close().awaitUninterruptibly();
      throw e;
    } catch (InterruptedException e) {
      listener.close().awaitUninterruptibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the admin port", e);
    }
  }

  /**
   * Proposes a command of the edge's own from the timer thread, so that it is queued behind what
   * other clients sent meanwhile rather than applied inside the batch that asked for it. Dropped if
   * this node does not lead (the leader proposes its own) or is closing; one proposed while the
   * replicator is still starting (a Raft member that leads at once) waits for it, a second at most.
   */
  private void proposeLater(
      AtomicReference<Replicator<CommandOrigin, ReadOrigin, PendingSnapshot>> target,
      Command command) {
    proposeLater(target, command, 100);
  }

  @SuppressWarnings("FutureReturnValueIgnored") // one-shot tasks; nothing to cancel
  private void proposeLater(
      AtomicReference<Replicator<CommandOrigin, ReadOrigin, PendingSnapshot>> target,
      Command command,
      int tries) {
    timers.schedule(
        () -> {
          Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> r = target.get();
          if (r == null && !closed && tries > 1) {
            proposeLater(target, command, tries - 1);
            return;
          }
          if (r == null || closed || !r.isLeader()) {
            edge.proposalDropped(command);
            return;
          }
          try {
            r.submit(command, null);
          } catch (IllegalStateException closing) {
            edge.proposalDropped(command);
            log.debug("not proposing {}: the replicator is closed", command);
          }
        },
        tries == 100 ? 0 : TimeUnit.MILLISECONDS.toNanos(10));
  }

  /**
   * Reads the auth file again and puts it in force (docs/security.md#reloading); a connection whose
   * token the new file no longer admits (revoked, expired) is closed with UNAUTHENTICATED, and
   * every watch and waiting request is checked against the new rules ({@link Revocation}). Blocking
   * (file I/O, and up to {@link Revocation#SWEEP_WAIT} for the check). Thread-safe.
   *
   * @return how many tokens and rules are now in force
   * @throws AuthFile.Invalid if the file cannot be used; the rules in force are unchanged
   * @throws IllegalStateException if this server runs without an auth file
   */
  public String reloadAuth() throws AuthFile.Invalid {
    Access access = config.security().reload();
    try {
      return access.summary() + Revocation.reloaded(connections, replicator, access);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return access.summary() + "; interrupted while watches and waiting requests were checked";
    }
  }

  /** This node lost the leadership: every client is sent to the new leader. */
  private void dropClients(String leaderHint) {
    for (Channel channel : connections) {
      Connection connection = channel.pipeline().get(Connection.class);
      if (connection != null) {
        connection.notLeader(leaderHint);
      }
    }
  }

  /** Answers a read the way a client's read is answered, on the applying thread. */
  private CompletableFuture<Reply> read(Query query) {
    CompletableFuture<Reply> answer = new CompletableFuture<>();
    replicator.read(query, new Edge.LocalRead(answer));
    return answer;
  }

  /**
   * Starts a server and returns once it listens.
   *
   * @throws InterruptedException if interrupted while binding
   * @throws io.netty.channel.ChannelException (or another unchecked exception) if the address
   *     cannot be bound
   */
  public static SemaforServer start(ServerConfig config) throws InterruptedException {
    return start(config, ReplicatorFactory.LOCAL);
  }

  /**
   * Starts a server applying commands through the replicator {@code replicators} makes (a Raft
   * group member, for a cluster node) and returns once it listens. A replicator that is also a
   * Micrometer {@link MeterBinder} is bound to the server's registry, so its own series appear on
   * {@code /metrics}.
   *
   * @throws InterruptedException if interrupted while binding
   */
  public static SemaforServer start(ServerConfig config, ReplicatorFactory replicators)
      throws InterruptedException {
    SemaforServer server = new SemaforServer(config, replicators);
    log.info("semafor listening on {} ({})", server.address(), server.transport.name());
    return server;
  }

  /** The address it listens on (with the real port if the config asked for port 0). */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** The admin HTTP endpoint's address, if it runs one ({@link ServerConfig#adminPort()}). */
  public @Nullable InetSocketAddress adminAddress() {
    return admin == null ? null : admin.address();
  }

  /** Whether this node serves clients (always, for a single node; the leader, in a cluster). */
  public boolean isLeader() {
    return replicator.isLeader();
  }

  /** Where the console's streams hear of changes (decision 0042). */
  ConsoleFeed consoleFeed() {
    return edge.consoleFeed;
  }

  /** The replicator, for the console's actions. */
  Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator() {
    return replicator;
  }

  /** The replicator's status (role, leader, term, indexes), for operators. */
  public java.util.Map<String, Object> replicationStatus() {
    return replicator.status();
  }

  /**
   * Adds a member to this node's cluster (see {@link Replicator#addMember}); blocks until the
   * change is committed.
   */
  public java.util.List<String> addMember(String member) {
    return replicator.addMember(member);
  }

  /**
   * Removes a member from this node's cluster (see {@link Replicator#removeMember}); blocks until
   * the change is committed.
   */
  public java.util.List<String> removeMember(String id) {
    return replicator.removeMember(id);
  }

  /** Whether {@link #close} has begun. */
  public boolean isClosed() {
    return closed;
  }

  /** This server's configuration. */
  public ServerConfig config() {
    return config;
  }

  /** How many sessions are live. */
  public int sessionCount() {
    return sessions.count();
  }

  /** How many client connections are open. */
  public int connectionCount() {
    return connections.size();
  }

  /**
   * Completes, with what failed, when this node can no longer serve and must be stopped and started
   * again: its replicated log could not be written (a failed sync, a full disk). Never completes
   * otherwise. {@code semafor server} then exits with status 74 (EX_IOERR) so that a supervisor
   * restarts it; an embedding application should close the server and start it again. Thread-safe.
   */
  public CompletableFuture<String> failure() {
    return failure;
  }

  /** Stops the server; idempotent. Blocks until connections and threads are closed. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    watchHeartbeat.cancel(false);
    if (admin != null) {
      admin.close();
    }
    listener.close().awaitUninterruptibly();
    connections.close().awaitUninterruptibly();
    timers.close();
    replicator.close();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    metrics.close();
    log.info("semafor on {} stopped", listener.localAddress());
  }

  /** The log time now (nanoseconds), to turn the state's log times into ages. */
  long logTime() {
    return replicator.logTime();
  }

  /**
   * Milliseconds since session {@code id}'s client was last heard from, keep-alives included (what
   * expiry counts, {@link Sessions#sinceHeard}); null if this node does not track it.
   */
  @Nullable Long sinceHeardMillis(long id) {
    long nanos = sessions.sinceHeard(id);
    return nanos < 0 ? null : nanos / 1_000_000;
  }
}
