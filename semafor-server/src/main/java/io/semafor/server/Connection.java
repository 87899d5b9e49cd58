package io.semafor.server;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.Secret;
import io.semafor.core.SessionOwner;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Fatal;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Pong;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.SnapshotChunk;
import io.semafor.protocol.v1.Unwatch;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.Welcome;
import io.semafor.replication.Replicator;
import io.semafor.replication.SnapshotFile;
import io.semafor.server.options.Durations;
import io.semafor.server.security.Access;
import io.semafor.server.security.Audit;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: a {@code Hello} opens or resumes a session, then every request of that
 * session goes to the replicator in the order it arrived, tagged with this connection so the answer
 * can find its way back. A malformed or oversized frame closes this connection only.
 *
 * <p>Frames are read on the channel's event loop; {@link #send} may be called from any thread (the
 * thread applying commands), Netty serialising the writes.
 */
final class Connection extends SimpleChannelInboundHandler<ClientFrame> implements CommandOrigin {
  private static final Logger log = LoggerFactory.getLogger(Connection.class);
  private static final ServerFrame PONG =
      ServerFrame.newBuilder().setPong(Pong.getDefaultInstance()).build();

  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final Sessions sessions;
  private final SessionQuota quota;
  private final ServerConfig config;
  private final Edge edge;

  /** Pongs held until the acknowledgements of their keep-alives are applied. */
  private final OwedPongs owedPongs = new OwedPongs();

  private volatile @Nullable Channel channel;

  /** The attached session; null before a Hello, while opening, or after the session ended. */
  private volatile Sessions.@Nullable Live session;

  /** The id of the last session this connection had, for requests after it ended. */
  private volatile long lastSessionId;

  private volatile boolean opening;

  /** Who this connection was taken for at its last Hello; null before one succeeded. */
  private volatile @Nullable Principal principal;

  private final ConnectionCaps caps;

  /** The principal this connection is counted against in {@link #caps}; null if none. */
  private @Nullable String countedPrincipal;

  /** The token it authenticated with, so a reload that revokes it can close the connection. */
  private volatile String token = "";

  /** The resume secret of the session being opened, for its Welcome; null when none is. */
  private volatile byte @Nullable [] openingSecret;

  /** Audited requests in flight: request id to what the audit log calls them. */
  private final ConcurrentHashMap<Long, String> audited = new ConcurrentHashMap<>();

  /** The quota key the session being opened was taken under; null when none is being opened. */
  private final AtomicReference<@Nullable String> openingOwner = new AtomicReference<>();

  /**
   * When this connection was last without a session and heard from, or lost its session ({@link
   * System#nanoTime()}): an idle connection without a session is closed {@link
   * ClientLimits#idleTimeout()} after it.
   */
  private volatile long quietSince;

  private long connectedAt;
  private volatile @Nullable ChannelHandlerContext context;
  private @Nullable ScheduledFuture<?> deadline;

  /** Ends this connection when its token expires (decision 0047); null if it never does. */
  private @Nullable ScheduledFuture<?> expiry;

  Connection(
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      Sessions sessions,
      SessionQuota quota,
      ConnectionCaps caps,
      ServerConfig config,
      Edge edge) {
    this.replicator = replicator;
    this.sessions = sessions;
    this.quota = quota;
    this.caps = caps;
    this.config = config;
    this.edge = edge;
  }

  /** Secrets and id entropy: unguessable, and shared by every connection (it is thread-safe). */
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The bytes of a session's resume secret. */
  static final int SECRET_BYTES = 16;

  /**
   * Whose quota of sessions a session opened here counts against: the authenticated principal, or
   * without authentication the client's source address (docs/security-limits.md).
   */
  String ownerKey() {
    Principal who = principal;
    if (who != null && !who.isAnonymous()) {
      // authenticated: the quota is the principal's wherever it connects from, so one principal
      // cannot exhaust it for others behind the same address (a NAT), nor escape it by moving
      return "principal " + who.name();
    }
    Channel c = channel;
    if (c != null && c.remoteAddress() instanceof InetSocketAddress remote) {
      return remote.getAddress().getHostAddress();
    }
    return "unknown";
  }

  /** The channel, once active; null before. */
  @Nullable Channel channel() {
    return channel;
  }

  /** The deferred flush of this connection's watch events (on its channel's loop). */
  private final DeferredFlush watchFlush = new DeferredFlush();

  /** The deferred flush of this connection's watch events; used on its channel's loop only. */
  DeferredFlush watchFlush() {
    return watchFlush;
  }

  /**
   * A read this connection asked for (a client's read, a watch's start) was not made: this node
   * does not lead. Its slot is freed and the client is sent to the leader.
   */
  void readRefused(String leaderHint) {
    readAnswered();
    notLeader(leaderHint);
  }

  // ------------------------------------------------------------------ a command's origin

  @Override
  public void refused(Command command, String leaderHint) {
    if (command instanceof Command.Request request) {
      unanswered(request.requestId());
    }
    // the client reconnects to the leader and sends the request again under its id
    notLeader(leaderHint);
  }

  @Override
  public void applied(Command command, Outcome outcome, long logTime, CommandOrigin.Answers to) {
    Reply reply = outcome.reply();
    if (reply == null) {
      return; // it waits: its grant is answered when it comes
    }
    if (command instanceof Command.OpenSession) {
      if (reply.result() instanceof Result.SessionOpened opened) {
        opened(opened.sessionId());
      } else if (reply.result() instanceof Result.Failure failure) {
        openFailed(failure.code(), failure.message());
      }
    } else if (command instanceof Command.Request) {
      to.route(reply, this, logTime);
    }
  }

  @Override
  public Connection asker() {
    return this;
  }

  /**
   * The file bytes one {@code SnapshotChunk} carries: half the default frame limit, so a chunk with
   * its few header fields always fits a client's frame limit.
   */
  static final int SNAPSHOT_CHUNK_BYTES = 512 * 1024;

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    channel = ctx.channel();
    context = ctx;
    connectedAt = System.nanoTime();
    quietSince = connectedAt;
    checkQuiet(ctx);
    super.channelActive(ctx);
  }

  /**
   * Closes a connection that has been welcomed into no session within {@link
   * ClientLimits#helloTimeout()} of connecting, or that has been without a session and silent for
   * {@link ClientLimits#idleTimeout()} since; otherwise looks again when it could be due. A
   * connection with a session is never closed here: its session's TTL and keep-alives say how long
   * it lives. Runs on the event loop, once per timeout at most.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the timer is kept in deadline
  private void checkQuiet(ChannelHandlerContext ctx) {
    deadline = null;
    if (!ctx.channel().isActive()) {
      return;
    }
    ClientLimits limits = config.clientLimits();
    long now = System.nanoTime();
    long idle = limits.idleTimeout().toNanos();
    long due;
    String why;
    if (session != null || opening || !watchIds.isEmpty()) {
      // a session's TTL says how long it lives; a connection that watches lives while it does
      due = now + idle;
      why = "";
    } else if (lastSessionId == 0) {
      due = connectedAt + limits.helloTimeout().toNanos();
      why =
          "helloTimeout ("
              + Durations.format(limits.helloTimeout())
              + "): no session was opened on this connection in time";
    } else {
      due = quietSince + idle;
      why =
          "idleTimeout ("
              + Durations.format(limits.idleTimeout())
              + "): this connection has no session and was silent";
    }
    if (due - now <= 0) {
      fatal(ErrorCode.RESOURCE_EXHAUSTED, why);
      return;
    }
    deadline = ctx.executor().schedule(() -> checkQuiet(ctx), due - now, NANOSECONDS);
  }

  /**
   * Looks again when this connection could first be idle, which may be sooner than the check
   * pending (set for the hello timeout, or a whole idle timeout after the session was last seen).
   * Any thread.
   */
  private void rearmQuiet() {
    ChannelHandlerContext ctx = context;
    if (ctx == null) {
      return;
    }
    ctx.executor()
        .execute(
            () -> {
              ScheduledFuture<?> timer = deadline;
              if (timer != null) {
                timer.cancel(false);
              }
              checkQuiet(ctx);
            });
  }

  /**
   * Stops reading from a client whose replies are not being read while they queue past the high
   * water mark, and reads again once they have drained below the low one, so such a client costs
   * its queue, bounded by {@link UnreadCap}, and not the requests it keeps sending.
   */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    drain();
    if (ctx.channel().isWritable()) {
      // watches left behind while the client did not read are caught up now that it does
      askCatchUp();
    }
    super.channelWritabilityChanged(ctx);
  }

  /**
   * Asks for this connection's watches left behind to be caught up, unless that is asked already.
   */
  private void askCatchUp() {
    if (watchIds.isEmpty() || !catchUpAsked.compareAndSet(false, true)) {
      return;
    }
    try {
      replicator.read(
          new Query.ListNames(io.semafor.core.Name.of(""), 1, null), new Edge.WatchCatchUp(this));
    } catch (Replicator.ReplicatorClosedException e) {
      // shutting down: nothing to catch up
    }
  }

  /**
   * Watches were left behind with more to send (a large start paused at its turn's share): asks for
   * the rest once what is queued now has mostly been written. While the channel is writable that is
   * looked at every 10 ms (a client reading slowly keeps the unsent bytes up without ever making
   * the channel unwritable when the unread cap is below the high water mark); once it is not, its
   * becoming writable asks. Any thread.
   */
  void catchUpSoon() {
    Channel c = channel;
    if (c != null && catchUpPolling.compareAndSet(false, true)) {
      c.eventLoop().execute(() -> catchUpWhenDrained(c, 10));
    }
  }

  /** A look for when to catch up is scheduled (one chain per connection). */
  private final java.util.concurrent.atomic.AtomicBoolean catchUpPolling =
      new java.util.concurrent.atomic.AtomicBoolean();

  @SuppressWarnings("FutureReturnValueIgnored") // a one-shot look: nothing to cancel
  private void catchUpWhenDrained(Channel c, long delayMillis) {
    if (!c.isActive() || !c.isWritable() || watchIds.isEmpty()) {
      catchUpPolling.set(false); // closed, unwatched, or its writability change asks
      return;
    }
    if (unsentBytes() < watchTurnBytes()) {
      catchUpPolling.set(false);
      askCatchUp();
    } else {
      // a client reading slowly: look again, less often the longer it takes (at most 1 s)
      long next = Math.min(1_000, delayMillis * 2);
      c.eventLoop().schedule(() -> catchUpWhenDrained(c, next), delayMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Bytes written to this connection's channel and not yet sent. Any thread. */
  long unsentBytes() {
    Channel c = channel;
    io.netty.channel.ChannelOutboundBuffer queued = c == null ? null : c.unsafe().outboundBuffer();
    return queued == null ? 0 : queued.totalPendingWriteBytes();
  }

  /**
   * What this connection's watches may have unsent at once before they are left behind, to go on
   * once it is written: a quarter of the unread cap (so that a large start never reaches it), at
   * most {@link Edge#WATCH_BYTES_PER_BATCH}.
   */
  long watchTurnBytes() {
    return Math.min(Edge.WATCH_BYTES_PER_BATCH, config.clientLimits().maxUnreadBytes() / 4);
  }

  /**
   * The most reads (and snapshots) of one connection being answered at once. A read's answer can be
   * half a frame (a page of names or of a queue) for a request of a few bytes: without a bound, the
   * few thousand reads one network read can carry would be answered with gigabytes before the
   * connection's queue could push back. More wait, parked, in order.
   */
  static final int MAX_READS_IN_FLIGHT = 16;

  /**
   * Frames read but not handled yet because the client does not read its replies or has {@link
   * #MAX_READS_IN_FLIGHT} reads being answered. While any are parked the channel is not read from,
   * so they are at most what one network read brought. Event loop only.
   */
  private final ArrayDeque<ClientFrame> parked = new ArrayDeque<>();

  private final AtomicInteger readsInFlight = new AtomicInteger();

  private boolean mustPark(Channel c, ClientFrame frame) {
    if (!c.isWritable()) {
      return true;
    }
    return switch (frame.getBodyCase()) {
      case READ, SNAPSHOT, WATCH -> readsInFlight.get() >= MAX_READS_IN_FLIGHT;
      default -> false;
    };
  }

  /**
   * Handles the parked frames that may go now, then reads from the channel only if none is left and
   * its replies are not piling up. Event loop only.
   */
  private void drain() {
    Channel c = channel;
    if (c == null) {
      return;
    }
    while (!parked.isEmpty() && c.isActive() && !mustPark(c, parked.peek())) {
      handle(parked.poll());
    }
    c.config().setAutoRead(parked.isEmpty() && c.isWritable());
  }

  /** A read or snapshot this connection asked for was answered (or refused). Any thread. */
  void readAnswered() {
    if (readsInFlight.decrementAndGet() == MAX_READS_IN_FLIGHT - 1) {
      Channel c = channel;
      if (c != null) {
        c.eventLoop().execute(this::drain);
      }
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, ClientFrame frame) {
    if (session == null) {
      quietSince = System.nanoTime();
    }
    if (!parked.isEmpty() || mustPark(ctx.channel(), frame)) {
      parked.add(frame);
      ctx.channel().config().setAutoRead(false);
      return;
    }
    handle(frame);
  }

  private void handle(ClientFrame frame) {
    try {
      switch (frame.getBodyCase()) {
        case REQUEST -> request(frame.getRequest());
        case KEEP_ALIVE -> keepAlive(frame.getKeepAlive());
        case HELLO -> hello(frame.getHello());
        case READ -> read(frame.getRead());
        case SNAPSHOT -> snapshot(frame.getSnapshot().getId());
        case WATCH -> watch(frame.getWatch());
        case UNWATCH -> unwatch(frame.getUnwatch());
        case BODY_NOT_SET -> fatal(ErrorCode.INVALID_ARGUMENT, "frame: an empty ClientFrame");
      }
    } catch (Replicator.ReplicatorClosedException e) {
      fatal(ErrorCode.UNAVAILABLE, "the server is shutting down");
    }
  }

  private void hello(Hello hello) {
    if (session != null || opening) {
      fatal(ErrorCode.INVALID_ARGUMENT, "hello: this connection already has a session");
      return;
    }
    if (hello.getProtocolVersion() != Frames.PROTOCOL_VERSION) {
      fatal(
          ErrorCode.INVALID_ARGUMENT,
          "protocolVersion: this server speaks "
              + Frames.PROTOCOL_VERSION
              + ", not "
              + hello.getProtocolVersion());
      return;
    }
    Principal who;
    try {
      who =
          config
              .security()
              .access()
              .authenticate(hello.getToken(), certificatePrincipal(), Instant.now());
    } catch (Access.Refused e) {
      Audit.record("hello", Principal.ANONYMOUS, address(), "UNAUTHENTICATED: " + e.reason());
      refuse(welcomeFailure(ErrorCode.UNAUTHENTICATED, e.reason()));
      return;
    }
    Principal before = principal;
    if (before != null && !before.name().equals(who.name())) {
      // requests may still reach the session the first principal opened here: they must not be
      // checked against another principal's permissions
      fatal(
          ErrorCode.INVALID_ARGUMENT,
          "hello: this connection was taken for " + before + "; a connection keeps its principal");
      return;
    }
    String capped = countAgainst(who);
    if (capped != null) {
      refuse(welcomeFailure(ErrorCode.RESOURCE_EXHAUSTED, capped));
      return;
    }
    // the token first, then the principal: whoever reads the principal (a reload's sweep) then
    // sees the token that goes with it
    token = hello.getToken();
    principal = who;
    Access now = config.security().access();
    if (!now.stillAdmits(who, token, Instant.now())) {
      // a reload revoked the token between the check above and this connection's publishing it,
      // and its sweep may have passed this connection by
      refuse(welcomeFailure(ErrorCode.UNAUTHENTICATED, "token: revoked or expired"));
      return;
    }
    Channel c = channel;
    ScheduledFuture<?> armed = expiry;
    if (armed != null) {
      armed.cancel(false); // a later Hello may bring another token of the same principal
    }
    expiry = c == null ? null : Revocation.armExpiry(this, c, who);
    if (!replicator.isLeader()) {
      send(
          ServerFrame.newBuilder()
              .setWelcome(
                  Welcome.newBuilder()
                      .setProtocolVersion(Frames.PROTOCOL_VERSION)
                      .setFailure(WireResults.notLeader(replicator.leaderHint())))
              .build());
      return;
    }
    if (hello.getNoSession()) {
      // authenticated, nothing opened: a connection that only watches or reads
      send(
          ServerFrame.newBuilder()
              .setWelcome(
                  Welcome.newBuilder()
                      .setProtocolVersion(Frames.PROTOCOL_VERSION)
                      .setRevision(edge.lastRevision())
                      .setServer("semafor")
                      .setPrincipal(who.isAnonymous() ? "" : who.name()))
              .build());
      return;
    }
    if (hello.getSessionId() != 0) {
      resume(who, hello.getSessionId(), hello.getSessionSecret().toByteArray());
      return;
    }
    long ttl =
        hello.getSessionTtlNs() == 0
            ? config.defaultSessionTtl().toNanos()
            : hello.getSessionTtlNs();
    if (ttl < config.minSessionTtl().toNanos() || ttl > config.maxSessionTtl().toNanos()) {
      send(
          welcomeFailure(
              ErrorCode.INVALID_ARGUMENT,
              "sessionTtl: must be within "
                  + config.minSessionTtl()
                  + ".."
                  + config.maxSessionTtl()
                  + ", was "
                  + Duration.ofNanos(ttl)));
      return;
    }
    String owner = ownerKey();
    String refused = quota.tryTake(owner);
    if (refused != null) {
      send(welcomeFailure(ErrorCode.RESOURCE_EXHAUSTED, refused));
      return;
    }
    byte[] secret = new byte[SECRET_BYTES];
    RANDOM.nextBytes(secret);
    openingSecret = secret;
    opening = true;
    openingOwner.set(owner);
    try {
      replicator.submit(
          new Command.OpenSession(
              ttl,
              new ClientInfo(hello.getClientName(), hello.getClientHost(), hello.getClientPid()),
              new SessionOwner(who.name(), Secret.digestOf(secret)),
              Secret.random(RANDOM)),
          this);
    } catch (RuntimeException e) {
      if (openingOwner.compareAndSet(owner, null)) {
        quota.release(owner);
      }
      throw e;
    }
  }

  /**
   * Resumes a session if {@code who} owns it and shows its secret. A session that is not theirs is
   * answered exactly as one that does not exist, so that a resume cannot probe for sessions.
   */
  private void resume(Principal who, long id, byte[] secret) {
    Sessions.Live live = sessions.get(id);
    if (live == null || !live.owner.admits(who.name(), Secret.digestOf(secret))) {
      if (live != null) {
        Audit.record(
            "resume session " + id, who, address(), "refused: not its owner, or a wrong secret");
      }
      send(
          welcomeFailure(
              ErrorCode.SESSION_EXPIRED,
              "sessionId: session " + id + " does not exist or has ended"));
      return;
    }
    // Welcome first, then attach: replies routed here afterwards are written after it. Requests
    // the client sends after reading it are read on this same event loop, after this returns.
    send(welcome(id, live.ttlNanos, true));
    session = live;
    lastSessionId = id;
    sessions.attach(live, this);
  }

  /** The machine opened the session this connection asked for. Called on the applying thread. */
  void opened(long id) {
    Sessions.Live live = sessions.get(id);
    String owner = openingOwner.getAndSet(null);
    if (owner != null && !sessions.own(id, owner)) {
      quota.release(owner);
    }
    opening = false;
    if (live == null) {
      return;
    }
    // Attach first, then Welcome: a client may send requests the moment it reads the Welcome, and
    // this runs on the applying thread, not on the event loop that will read them. A new session
    // has nothing to be answered yet, so nothing routed here can overtake the Welcome.
    session = live;
    lastSessionId = id;
    sessions.attach(live, this);
    send(welcome(id, live.ttlNanos, false));
    openingSecret = null;
  }

  /** The machine refused to open a session. Called on the applying thread. */
  void openFailed(ErrorCode code, String message) {
    String owner = openingOwner.getAndSet(null);
    if (owner != null) {
      quota.release(owner);
    }
    opening = false;
    openingSecret = null;
    send(welcomeFailure(code, message));
  }

  private ServerFrame welcome(long id, long ttl, boolean resumed) {
    Welcome.Builder w =
        Welcome.newBuilder()
            .setProtocolVersion(Frames.PROTOCOL_VERSION)
            .setSessionId(id)
            .setSessionTtlNs(ttl)
            .setResumed(resumed)
            .setRevision(edge.lastRevision())
            .setServer("semafor");
    byte[] secret = openingSecret;
    if (!resumed && secret != null) {
      w.setSessionSecret(ByteString.copyFrom(secret));
    }
    Principal who = principal;
    if (who != null) {
      w.setPrincipal(who.name());
    }
    return ServerFrame.newBuilder().setWelcome(w).build();
  }

  private static ServerFrame welcomeFailure(ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setWelcome(
            Welcome.newBuilder()
                .setProtocolVersion(Frames.PROTOCOL_VERSION)
                .setFailure(WireResults.failure(code, message)))
        .build();
  }

  private void request(Request request) {
    if (credentialExpired()) {
      return;
    }
    long sessionId = sessionIdOrFail("request");
    if (sessionId == 0) {
      return;
    }
    Operation op;
    try {
      op = WireRequests.operation(request);
    } catch (WireRequests.Malformed e) {
      refuse(sessionId, request, ErrorCode.INVALID_ARGUMENT, e.reason());
      return;
    }
    String denied = denial(op);
    if (denied != null) {
      Audit.record(
          WireAudit.describe(op), whoOrAnonymous(), address(), "PERMISSION_DENIED: " + denied);
      refuse(sessionId, request, ErrorCode.PERMISSION_DENIED, denied);
      return;
    }
    op = Authorizer.bind(config.security().access(), whoOrAnonymous(), op);
    // before the submit: a local replicator may apply (and answer) on this very thread
    if (WireAudit.audited(op)) {
      audited.put(request.getId(), WireAudit.describe(op));
    }
    try {
      replicator.submit(
          new Command.Request(sessionId, request.getId(), request.getAcksList(), op), this);
    } catch (RuntimeException e) {
      String action = audited.remove(request.getId());
      if (action != null) {
        Audit.record(action, whoOrAnonymous(), address(), "UNAVAILABLE: not submitted: " + e);
      }
      throw e;
    }
  }

  /**
   * Counts this connection against {@code who}'s connection cap (authenticated principals only);
   * why not, if the principal has its fill. Runs on the event loop, like every Hello.
   */
  private @Nullable String countAgainst(Principal who) {
    String name = who.isAnonymous() ? null : who.name();
    String counted = countedPrincipal;
    if (Objects.equals(name, counted)) {
      return null;
    }
    if (counted != null) {
      caps.releasePrincipal(counted);
      countedPrincipal = null;
    }
    if (name == null) {
      return null;
    }
    String refused = caps.admitPrincipal(name);
    if (refused == null) {
      countedPrincipal = name;
    }
    return refused;
  }

  /** Why this connection's principal may not make {@code op}; null if it may. */
  private @Nullable String denial(Operation op) {
    Access access = config.security().access();
    Principal who = whoOrAnonymous();
    String denied = Authorizer.deny(access, who, op);
    if (denied == null && access.enforced() && op instanceof Operation.EndSession end) {
      // one's own sessions may be ended; another principal's only with cluster
      Sessions.Live target = sessions.get(end.sessionId());
      if (target == null || !target.owner.principal().equals(who.name())) {
        denied = Authorizer.denyCluster(access, who, "end another principal's session");
      }
    }
    return denied;
  }

  private Principal whoOrAnonymous() {
    Principal who = principal;
    return who == null ? Principal.ANONYMOUS : who;
  }

  /**
   * The principal of this connection's verified client certificate (mutual TLS); null without one.
   */
  private @Nullable String certificatePrincipal() {
    Channel c = channel;
    return c == null ? null : TlsPeers.principal(c);
  }

  /** The client's address, for the audit log. */
  String address() {
    Channel c = channel;
    return c == null ? "?" : String.valueOf(c.remoteAddress());
  }

  /**
   * Called on the applying thread with the reply to every request this connection submitted,
   * wherever the reply goes (its session may have been resumed on another connection since): the
   * reply to an audited request writes its outcome to the audit log, with the principal and address
   * that asked. Cheap when nothing is audited.
   */
  void answered(Reply reply) {
    if (audited.isEmpty()) {
      return;
    }
    String action = audited.remove(reply.requestId());
    if (action != null) {
      String outcome =
          reply.result() instanceof Result.Failure f ? f.code() + ": " + f.message() : "ok";
      Audit.record(action, whoOrAnonymous(), address(), outcome);
    }
  }

  /**
   * A request this connection submitted will not be answered here: this node stopped leading before
   * it was applied. An audited one is logged with its outcome unknown — the new leader's log
   * decides whether it happened, and the client sends it again there under the same id.
   */
  void unanswered(long requestId) {
    String action = audited.remove(requestId);
    if (action != null) {
      Audit.record(
          action,
          whoOrAnonymous(),
          address(),
          "UNKNOWN: NOT_LEADER before the answer; the leader's log decides, the client retries there");
    }
  }

  /** Who this connection was taken for; null before a {@code Hello} succeeded. Any thread. */
  @Nullable Principal principal() {
    return principal;
  }

  /** The session attached here, or 0. Any thread. */
  long sessionId() {
    Sessions.Live live = session;
    return live == null ? 0 : live.id;
  }

  /** The replicator this connection submits to. */
  Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator() {
    return replicator;
  }

  /**
   * The watch {@code id} was ended by the server (its principal lost {@code read}, decision 0047);
   * the client was told. Any thread.
   */
  void watchEnded(long id) {
    watchIds.remove(id);
  }

  /**
   * Whether this connection still stands under the rules in force: false once the token it
   * authenticated with is revoked or expired (a reload then closes it).
   */
  boolean stillAdmitted(Access access, Instant now) {
    Principal who = principal;
    return who == null || access.stillAdmits(who, token, now);
  }

  /**
   * Reads on past a page of a listing that holds nothing this principal may see (then its answer is
   * not sent); false if {@code reply} is to be answered. Called on the applying thread; the next
   * read is asked from this connection's event loop, as every read is. A listing costs the server
   * the names it scans, as without permissions.
   */
  boolean readOnPast(long readId, Query query, Reply reply) {
    Access access = config.security().access();
    if (!access.enforced()) {
      return false;
    }
    Query next = WireAudit.nextPageIfNothingVisible(access, whoOrAnonymous(), query, reply);
    Channel c = channel;
    if (next == null || c == null) {
      return false;
    }
    c.eventLoop()
        .execute(
            () -> {
              try {
                replicator.read(next, new PendingRead(this, readId));
              } catch (Replicator.ReplicatorClosedException e) {
                fatal(ErrorCode.UNAVAILABLE, "the server is shutting down");
              }
            });
    return true;
  }

  /** The part of a read's answer this connection's principal may see. */
  Reply visible(Reply reply) {
    Access access = config.security().access();
    if (!access.enforced()) {
      return reply;
    }
    return WireAudit.visible(access, whoOrAnonymous(), reply);
  }

  private void keepAlive(KeepAlive keepAlive) {
    if (credentialExpired()) {
      return; // a keep-alive must not keep a session alive on an expired token
    }
    long sessionId = sessionIdOrFail("keepAlive");
    if (sessionId == 0) {
      return;
    }
    boolean confirm = keepAlive.getAcksCount() > 0 || keepAlive.getSync();
    if (keepAlive.getId() != 0) {
      // the client pairs pongs by id: only this keep-alive's own pong waits
      ServerFrame pong =
          ServerFrame.newBuilder().setPong(Pong.newBuilder().setId(keepAlive.getId())).build();
      if (confirm) {
        replicator.submit(
            new Command.Acknowledge(sessionId, keepAlive.getAcksList()), new AfterAcks(this, pong));
      } else {
        send(pong);
      }
      return;
    }
    if (!confirm) {
      if (owedPongs.plain()) {
        send(PONG);
      }
      return;
    }
    // before the submit: a local replicator may apply (and call acksApplied) on this very thread
    owedPongs.hold();
    replicator.submit(
        new Command.Acknowledge(sessionId, keepAlive.getAcksList()), new AfterAcks(this, null));
  }

  /**
   * The {@code Acknowledge} that {@code after} waited for was applied: the frames that may go now.
   * On the applying thread.
   */
  List<ServerFrame> acksApplied(AfterAcks after) {
    ServerFrame answer = after.answer();
    if (answer != null) {
      return List.of(answer);
    }
    return Collections.nCopies(owedPongs.applied(), PONG);
  }

  /**
   * Answers a request refused here, before the replicator: the acknowledgements it carried are
   * applied first, as they would have been with the request, and the answer goes out after them.
   */
  private void refuse(long sessionId, Request request, ErrorCode code, String message) {
    ServerFrame answer =
        ServerFrame.newBuilder()
            .setResponse(
                Response.newBuilder()
                    .setId(request.getId())
                    .setFailure(WireResults.failure(code, message)))
            .build();
    if (request.getAcksCount() == 0) {
      send(answer);
      return;
    }
    replicator.submit(
        new Command.Acknowledge(sessionId, request.getAcksList()), new AfterAcks(this, answer));
  }

  /**
   * The session's id, marking it heard from; 0 if the frame has no live session to go to. Then the
   * client has been told why, or is being told: before {@code Hello}, a {@code Fatal}
   * INVALID_ARGUMENT; after its session ended (expired, or closed on this connection), a {@code
   * Fatal} SESSION_EXPIRED, so that a client that was not running when its session expired learns
   * it from its first keep-alive instead of getting a {@code Pong} for a session that is gone. A
   * frame on a connection whose session lives on elsewhere (resumed on another connection, or this
   * node no longer leads) still belongs to the session: its id is returned.
   */
  private long sessionIdOrFail(String what) {
    Sessions.Live live = session;
    if (live != null) {
      live.heard();
      return live.id;
    }
    long last = lastSessionId;
    if (last == 0) {
      fatal(ErrorCode.INVALID_ARGUMENT, what + ": no session; a connection begins with Hello");
      return 0;
    }
    if (sessions.get(last) == null) {
      fatal(ErrorCode.SESSION_EXPIRED, ended(last));
      return 0;
    }
    // the session lives on elsewhere (resumed on another connection, or this node stopped
    // leading): a request its client sent here before it moved is still the session's, applied
    // once by its id, and answered where the session is attached now (or refused as not leader)
    return last;
  }

  private static String ended(long sessionId) {
    return "sessionId: session "
        + sessionId
        + " has ended; what it held went back. Open a new session with Hello";
  }

  /**
   * Whether the token this connection authenticated with has expired since (then it is closed with
   * UNAUTHENTICATED and its session's waiting requests refused, once): expiry is a property of the
   * credential, not only of the {@code Hello}. Called for every frame and by the expiry timer.
   */
  boolean credentialExpired() {
    Principal who = principal;
    if (who == null || !who.expiredAt(Instant.now())) {
      return false;
    }
    if (!expiryHandled) {
      expiryHandled = true;
      Revocation.tokenExpired(this, who, config.security().access());
    }
    return true;
  }

  /** The expiry of this connection's token was acted on (event loop only). */
  private boolean expiryHandled;

  private void read(Read read) {
    if (credentialExpired()) {
      return;
    }
    if (config.security().access().enforced() && principal == null) {
      fatal(ErrorCode.UNAUTHENTICATED, "read: a connection begins with Hello and its credentials");
      return;
    }
    Query query;
    try {
      query = WireRequests.query(read, config.maxFrameBytes());
    } catch (WireRequests.Malformed e) {
      send(
          ServerFrame.newBuilder()
              .setReadResponse(
                  ReadResponse.newBuilder()
                      .setId(read.getId())
                      .setFailure(WireResults.failure(ErrorCode.INVALID_ARGUMENT, e.reason())))
              .build());
      return;
    }
    String denied = Authorizer.deny(config.security().access(), whoOrAnonymous(), query);
    if (denied != null) {
      send(
          ServerFrame.newBuilder()
              .setReadResponse(
                  ReadResponse.newBuilder()
                      .setId(read.getId())
                      .setFailure(WireResults.failure(ErrorCode.PERMISSION_DENIED, denied)))
              .build());
      return;
    }
    readsInFlight.incrementAndGet();
    replicator.read(query, new PendingRead(this, read.getId()));
  }

  // ------------------------------------------------------------------ watches (decision 0041)

  /** The most watches one connection may run at once. */
  static final int MAX_WATCHES = 64;

  /** The entries per list of a watched state when the client names no limit. */
  static final int DEFAULT_WATCH_LIMIT = 100;

  /**
   * This connection's running watches: each id with the start that began it, so that a start still
   * on its way for an id unwatched and watched again meanwhile is told apart from the new.
   */
  private final ConcurrentHashMap<Long, Edge.WatchStart> watchIds = new ConcurrentHashMap<>();

  /** A catch-up of this connection's watches is on its way to the applying thread. */
  private final java.util.concurrent.atomic.AtomicBoolean catchUpAsked =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** Whether {@code start} is the start of a watch still running here. Any thread. */
  boolean watching(Edge.WatchStart start) {
    return watchIds.get(start.id()) == start;
  }

  /**
   * Whether watch events may be queued for this connection now: it is open and its client reads
   * what it is sent. One that does not is left behind and caught up once it drains. Any thread.
   */
  boolean takesWatchEvents() {
    Channel c = channel;
    return c != null && c.isActive() && c.isWritable();
  }

  private void watch(Watch w) {
    if (credentialExpired()) {
      return;
    }
    if (config.security().access().enforced() && principal == null) {
      fatal(ErrorCode.UNAUTHENTICATED, "watch: a connection begins with Hello and its credentials");
      return;
    }
    long id = w.getId();
    io.semafor.core.Name name = io.semafor.core.Name.ofBytes(w.getName().toByteArray());
    String invalid = null;
    int maxName = config.limits().maxNameBytes();
    if (id == 0) {
      invalid = "id: must not be 0";
    } else if (watchIds.containsKey(id)) {
      invalid = "id: watch " + id + " is already running on this connection";
    } else if (w.getLimit() < 0 || w.getLimit() > Query.Inspect.MAX_LIMIT) {
      invalid = "limit: must be within 0.." + Query.Inspect.MAX_LIMIT + ", was " + w.getLimit();
    } else if (name.length() > maxName) {
      invalid = "name: " + name.length() + " bytes, more than the " + maxName + " a name may have";
    } else if (!w.getPrefix() && name.length() == 0) {
      invalid = "name: empty (watch every name with prefix and an empty name)";
    }
    if (invalid != null) {
      send(watchFailed(id, ErrorCode.INVALID_ARGUMENT, invalid));
      return;
    }
    if (watchIds.size() >= MAX_WATCHES) {
      send(
          watchFailed(
              id,
              ErrorCode.RESOURCE_EXHAUSTED,
              "maxWatches: this connection already runs " + MAX_WATCHES + " watches"));
      return;
    }
    // read on the name, or on the whole prefix (grants are by prefix): a list is filtered by
    // permission instead of refused, which a watch's states are not
    String denied =
        Authorizer.deny(config.security().access(), whoOrAnonymous(), new Query.Get(name));
    if (denied != null) {
      send(watchFailed(id, ErrorCode.PERMISSION_DENIED, denied));
      return;
    }
    Edge.WatchStart start =
        new Edge.WatchStart(
            this,
            id,
            name,
            w.getPrefix(),
            w.getAfterRevision(),
            w.getLimit() == 0 ? DEFAULT_WATCH_LIMIT : w.getLimit(),
            w.getSummary());
    watchIds.put(id, start);
    readsInFlight.incrementAndGet();
    // a read is the start's place in the apply order (linearizable: on a new leader, after
    // everything committed); its answer is not used
    replicator.read(new Query.ListNames(io.semafor.core.Name.of(""), 1, null), start);
  }

  /** The catch-up asked for has been made: the next drain may ask for another. Any thread. */
  void caughtUp() {
    catchUpAsked.set(false);
  }

  private void unwatch(Unwatch u) {
    if (watchIds.remove(u.getId()) != null) {
      edge.unwatch(this, u.getId());
    }
  }

  private static ServerFrame watchFailed(long id, ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setWatchEvent(WireResults.watchFailed(id, code, message))
        .build();
  }

  private void snapshot(long id) {
    Access access = config.security().access();
    if (access.enforced()) {
      if (principal == null) {
        fatal(
            ErrorCode.UNAUTHENTICATED,
            "snapshot: a connection begins with Hello and its credentials");
        return;
      }
      String denied = Authorizer.denyCluster(access, whoOrAnonymous(), "take a snapshot");
      Audit.record(
          "snapshot",
          whoOrAnonymous(),
          address(),
          denied == null ? "ok" : "PERMISSION_DENIED: " + denied);
      if (denied != null) {
        send(
            ServerFrame.newBuilder()
                .setSnapshotChunk(
                    SnapshotChunk.newBuilder()
                        .setId(id)
                        .setLast(true)
                        .setFailure(WireResults.failure(ErrorCode.PERMISSION_DENIED, denied)))
                .build());
        return;
      }
    }
    readsInFlight.incrementAndGet();
    replicator.snapshot(new PendingSnapshot(this, id));
  }

  /**
   * The session ended (closed or expired). Called on the applying thread. An expiry is news to the
   * client, which may have been unable to run or to reach us for a while: it is told at once with a
   * {@code Fatal} SESSION_EXPIRED and the connection closes, so it reports the loss and opens a new
   * session without waiting to notice silence. A close is what the client asked for, and the answer
   * to its {@code close_session} says so.
   */
  void sessionEnded(long id, boolean expired) {
    Sessions.Live live = session;
    if (live != null && live.id == id) {
      session = null;
      quietSince = System.nanoTime();
      if (expired) {
        fatal(ErrorCode.SESSION_EXPIRED, ended(id));
      } else {
        rearmQuiet();
      }
    }
  }

  /** The session was resumed on another connection: this one is stale. */
  void supersede() {
    session = null;
    fatal(ErrorCode.UNAVAILABLE, "the session was resumed on another connection");
  }

  /** Sends a frame; from any thread. Dropped if the connection is gone. */
  @SuppressWarnings("FutureReturnValueIgnored") // a void promise: failures close the channel
  void send(ServerFrame frame) {
    Channel c = channel;
    if (c != null && c.isActive()) {
      c.writeAndFlush(frame, c.voidPromise());
    }
  }

  /**
   * Sends a snapshot's file in chunks, one written after the previous one has gone to the socket,
   * so a large state is never queued twice in memory. From any thread; a chunk that cannot be
   * written (the client went away) ends the sending.
   */
  void sendSnapshot(long id, SnapshotFile.Image image) {
    Channel c = channel;
    if (c != null && c.isActive()) {
      sendChunk(c, id, image, 0);
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // the listener handles every outcome
  private static void sendChunk(Channel c, long id, SnapshotFile.Image image, int offset) {
    int n = Math.min(SNAPSHOT_CHUNK_BYTES, image.length() - offset);
    boolean last = offset + n == image.length();
    ServerFrame frame =
        ServerFrame.newBuilder()
            .setSnapshotChunk(
                SnapshotChunk.newBuilder()
                    .setId(id)
                    .setOffset(offset)
                    .setData(UnsafeByteOperations.unsafeWrap(image.bytes(), offset, n))
                    .setTotalBytes(image.length())
                    .setLast(last))
            .build();
    if (last) {
      c.writeAndFlush(frame, c.voidPromise());
      return;
    }
    c.writeAndFlush(frame)
        .addListener(
            written -> {
              if (written.isSuccess()) {
                sendChunk(c, id, image, offset + n);
              }
            });
  }

  /** This node is not the leader (any more): says where to go, then closes this connection. */
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  void notLeader(String leaderHint) {
    // an open refused because this node does not lead will never be answered: its quota goes
    // back (if it is applied after all, its session simply counts against no one)
    String owner = openingOwner.getAndSet(null);
    if (owner != null) {
      quota.release(owner);
    }
    Channel c = channel;
    if (c == null) {
      return;
    }
    session = null;
    c.writeAndFlush(
            ServerFrame.newBuilder()
                .setFatal(Fatal.newBuilder().setFailure(WireResults.notLeader(leaderHint)))
                .build())
        .addListener(ChannelFutureListener.CLOSE);
  }

  /** Sends {@code frame} (a refused Welcome), then closes this connection. */
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  private void refuse(ServerFrame frame) {
    Channel c = channel;
    if (c != null) {
      c.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * Says why, then closes this connection: once the {@code Fatal} is written, or after {@link
   * #FATAL_GRACE_SECONDS} if the client does not read it.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  void fatal(ErrorCode code, String message) {
    Channel c = channel;
    if (c == null) {
      return;
    }
    Failure failure = WireResults.failure(code, message);
    c.writeAndFlush(
            ServerFrame.newBuilder().setFatal(Fatal.newBuilder().setFailure(failure)).build())
        .addListener(ChannelFutureListener.CLOSE);
    c.eventLoop().schedule(() -> c.close(), FATAL_GRACE_SECONDS, TimeUnit.SECONDS);
  }

  /** How long a {@code Fatal} may wait for a client that does not read it before the close. */
  static final long FATAL_GRACE_SECONDS = 2;

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    String counted = countedPrincipal;
    if (counted != null) {
      countedPrincipal = null;
      caps.releasePrincipal(counted);
    }
    ScheduledFuture<?> timer = deadline;
    if (timer != null) {
      timer.cancel(false);
    }
    ScheduledFuture<?> expires = expiry;
    if (expires != null) {
      expires.cancel(false);
    }
    Sessions.Live live = session;
    if (live != null) {
      sessions.detach(live.id, this);
    }
    watchIds.clear();
    edge.connectionClosed(this);
    super.channelInactive(ctx);
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof LimitExceeded limit) {
      fatal(ErrorCode.RESOURCE_EXHAUSTED, String.valueOf(limit.getMessage()));
    } else if (cause instanceof TooLongFrameException) {
      fatal(ErrorCode.RESOURCE_EXHAUSTED, String.valueOf(cause.getMessage()));
    } else if (cause instanceof DecoderException
        && cause.getCause() instanceof InvalidProtocolBufferException bad) {
      fatal(ErrorCode.INVALID_ARGUMENT, "frame: not a ClientFrame: " + bad.getMessage());
    } else if (Tls.failed(cause)) {
      // a plaintext client on a TLS port, a certificate refused: said in one line, no stack trace;
      // nothing can be sent back in the clear through the TLS handler, so the connection closes
      log.info("TLS with {} failed: {}", ctx.channel().remoteAddress(), Tls.reason(cause));
      ctx.close();
    } else if (cause instanceof IOException) {
      ctx.close(); // the peer went away
    } else {
      log.warn("closing connection {} after an unexpected error", ctx.channel(), cause);
      fatal(ErrorCode.UNAVAILABLE, "internal error");
    }
  }
}
