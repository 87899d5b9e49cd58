package io.semafor.server;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.replication.Replicator;
import io.semafor.replication.SnapshotFile;
import io.semafor.server.security.Access;
import io.semafor.server.security.Principal;
import io.semafor.server.session.Moment;
import io.semafor.server.session.NodeView;
import io.semafor.server.session.Peer;
import io.semafor.server.session.ServerEffect;
import io.semafor.server.session.ServerSession;
import io.semafor.server.session.SessionRules;
import io.semafor.server.wire.WireAudit;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: the driver of its {@link ServerSession}. It passes the frames read, the
 * node's outcomes and the time to the machine, under one lock, and carries out the effects the
 * machine returns: writes, closes, proposals and reads to the replicator, the session's attachment,
 * audit lines, a timer at the machine's next deadline. It decides nothing about the protocol; what
 * it keeps is what only the channel knows (bytes unsent, writability: {@link WatchPacing}) and the
 * audited requests in flight, answered on the applying thread.
 *
 * <p>Frames are read on the channel's event loop; outcomes come on the applying thread, a
 * supersession on another connection's loop, a reload's revocation on its own thread. Effects are
 * carried out after the lock is released, in order, so one that loops back (a local replicator
 * applying on the calling thread) finds the machine ready.
 */
final class Connection extends SimpleChannelInboundHandler<ClientFrame>
    implements CommandOrigin, Outbox.Recipient {
  private static final Logger log = LoggerFactory.getLogger(Connection.class);

  /** Resume secrets and id entropy: unguessable, and shared by every connection (thread-safe). */
  private static final SecureRandom RANDOM = new SecureRandom();

  /** How long a closing frame may wait for a client that does not read it before the close. */
  static final long FATAL_GRACE_SECONDS = 2;

  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final NodeView node;
  private final SessionRules rules;
  private final ServerConfig config;
  private final Edge edge;
  private final WatchPacing pacing;

  /** Guards {@link #machine} and {@link #timer}. */
  private final Object lock = new Object();

  private @Nullable ServerSession machine;

  /** The timer armed at the machine's next deadline, and that deadline. */
  private @Nullable ScheduledFuture<?> timer;

  private long timerAt = Long.MAX_VALUE;

  private volatile @Nullable Channel channel;

  /** Carries out what the machine decides. */
  private final ConnectionEffects runner;

  /** The deferred flush of this connection's watch events (on its channel's loop). */
  private final DeferredFlush watchFlush = new DeferredFlush();

  Connection(
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      Sessions sessions,
      NodeView node,
      SessionRules rules,
      ServerConfig config,
      Edge edge) {
    this.replicator = replicator;
    this.node = node;
    this.rules = rules;
    this.config = config;
    this.edge = edge;
    this.runner = new ConnectionEffects(this, replicator, sessions, edge, config);
    this.pacing = new WatchPacing(this, replicator, config.clientLimits(), this::watching);
  }

  // ------------------------------------------------------------------ the channel's events

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    Channel c = ctx.channel();
    channel = c;
    String host =
        c.remoteAddress() instanceof InetSocketAddress remote
            ? remote.getAddress().getHostAddress()
            : "unknown";
    synchronized (lock) {
      ServerSession m =
          new ServerSession(
              rules, node, RANDOM, new Peer(String.valueOf(c.remoteAddress()), host), Moment.now());
      machine = m;
      rearm(m);
    }
    super.channelActive(ctx);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, ClientFrame frame) {
    List<ServerEffect> effects;
    synchronized (lock) {
      ServerSession m = machine;
      if (m == null) {
        return;
      }
      if (frame.hasHello()) {
        // the TLS handshake is over by the time a frame is read: its certificate is known now
        m.certified(TlsPeers.principal(ctx.channel()));
      }
      effects = m.received(frame, Moment.now());
      rearm(m);
    }
    run(effects);
  }

  /**
   * Stops reading from a client whose replies are not being read while they queue past the high
   * water mark, and reads again once they have drained below the low one, so such a client costs
   * its queue, bounded by {@link UnreadCap}, and not the requests it keeps sending.
   */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    boolean writable = ctx.channel().isWritable();
    List<ServerEffect> effects = List.of();
    synchronized (lock) {
      ServerSession m = machine;
      if (m != null) {
        // parked frames handled now may move the deadline (a Hello, the last watch stopped)
        effects = m.writable(writable, Moment.now());
        rearm(m);
      }
    }
    run(effects);
    if (writable) {
      // watches left behind while the client did not read are caught up now that it does
      pacing.askCatchUp();
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    List<ServerEffect> effects;
    synchronized (lock) {
      ServerSession m = machine;
      effects = m == null ? List.of() : m.disconnected();
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
        timer = null;
      }
      timerAt = Long.MAX_VALUE;
    }
    run(effects);
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

  // ------------------------------------------------------------------ the node's outcomes

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
      List<ServerEffect> effects;
      synchronized (lock) {
        ServerSession m = machine;
        if (m == null) {
          return;
        }
        effects =
            reply.result() instanceof Result.SessionOpened opened
                ? m.opened(opened.sessionId())
                : reply.result() instanceof Result.Failure failure
                    ? m.openFailed(failure.code(), failure.message())
                    : List.of();
        rearm(m);
      }
      run(effects);
    } else if (command instanceof Command.Request) {
      to.route(reply, this, logTime);
    }
  }

  @Override
  public Connection asker() {
    return this;
  }

  /**
   * The acknowledgements {@code after} waited for were applied: the frames that may go now, for the
   * applying thread's outbox.
   */
  List<ServerFrame> acksApplied(AfterAcks after) {
    List<ServerEffect> effects;
    synchronized (lock) {
      ServerSession m = machine;
      if (m == null) {
        return List.of();
      }
      effects = m.acknowledged(after.answer());
    }
    List<ServerFrame> frames = new ArrayList<>(effects.size());
    for (ServerEffect effect : effects) {
      if (effect instanceof ServerEffect.Send send) {
        frames.add(send.frame());
      } else {
        run(List.of(effect));
      }
    }
    return frames;
  }

  /** The session ended (closed or expired). Called on the applying thread. */
  void sessionEnded(long id, boolean expired) {
    step(m -> m.sessionEnded(id, expired, Moment.now()));
  }

  /** The session was resumed on another connection: this one is stale. Any thread. */
  void supersede() {
    step(ServerSession::superseded);
  }

  /** This node is not the leader (any more): says where to go, then closes. Any thread. */
  void notLeader(String leaderHint) {
    step(m -> m.notLeader(leaderHint));
  }

  /** Says why, then closes this connection. Any thread. */
  void fatal(ErrorCode code, String message) {
    step(m -> m.fail(code, message));
  }

  /** A read, snapshot or watch start this connection asked for was answered. Any thread. */
  @Override
  public void readAnswered() {
    step(m -> m.readAnswered(Moment.now()));
  }

  /**
   * A read this connection asked for (a client's read, a watch's start) was not made: this node
   * does not lead. Its slot is freed and the client is sent to the leader.
   */
  void readRefused(String leaderHint) {
    readAnswered();
    notLeader(leaderHint);
  }

  /** The watch {@code id} was ended by the server (its principal lost {@code read}). Any thread. */
  void watchEnded(long id) {
    synchronized (lock) {
      ServerSession m = machine;
      if (m != null) {
        m.watchEnded(id);
        rearm(m); // a connection left without a session or a watch is timed again
      }
    }
  }

  /** The reply to a request this connection submitted, wherever it goes: for the audit log. */
  void answered(Reply reply) {
    runner.answered(reply);
  }

  /** A request this connection submitted will not be answered here: this node stopped leading. */
  void unanswered(long requestId) {
    runner.unanswered(requestId);
  }

  // ------------------------------------------------------------------ what others ask of it

  /** The channel, once active; null before. */
  @Override
  public @Nullable Channel channel() {
    return channel;
  }

  /** The deferred flush of this connection's watch events; used on its channel's loop only. */
  @Override
  public DeferredFlush watchFlush() {
    return watchFlush;
  }

  /** Who this connection was taken for; null before a {@code Hello} succeeded. Any thread. */
  @Nullable Principal principal() {
    synchronized (lock) {
      ServerSession m = machine;
      return m == null ? null : m.principal();
    }
  }

  /** The session attached here, or 0. Any thread. */
  long sessionId() {
    synchronized (lock) {
      ServerSession m = machine;
      return m == null ? 0 : m.sessionId();
    }
  }

  /** Whether this connection still stands under {@code access}: false once its token is revoked. */
  boolean stillAdmitted(Access access, Instant now) {
    synchronized (lock) {
      ServerSession m = machine;
      return m == null || m.stillAdmitted(access, now);
    }
  }

  /** The client's address, for the audit log. */
  String address() {
    Channel c = channel;
    return c == null ? "?" : String.valueOf(c.remoteAddress());
  }

  /** Whether {@code start} is the start of a watch still running here. Any thread. */
  boolean watching(EdgeWatches.Start start) {
    synchronized (lock) {
      ServerSession m = machine;
      return m != null && m.watching(start.request());
    }
  }

  private boolean watching() {
    synchronized (lock) {
      ServerSession m = machine;
      return m != null && m.watchCount() > 0;
    }
  }

  /** How fast this connection's watch events may go, and when they catch up. */
  WatchPacing pacing() {
    return pacing;
  }

  /**
   * Reads on past a page of a listing that holds nothing this principal may see (then its answer is
   * not sent); false if {@code reply} is to be answered. Called on the applying thread; the next
   * read is asked from this connection's event loop, as every read is.
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

  /** Sends a snapshot's file in chunks. From any thread. */
  void sendSnapshot(long id, SnapshotFile.Image image) {
    Channel c = channel;
    if (c != null) {
      SnapshotStream.send(c, id, image);
    }
  }

  // ------------------------------------------------------------------ driving the machine

  /** An input that steps the machine and returns its effects. */
  private interface Input {
    List<ServerEffect> to(ServerSession machine);
  }

  private void step(Input input) {
    List<ServerEffect> effects;
    synchronized (lock) {
      ServerSession m = machine;
      if (m == null) {
        return;
      }
      effects = input.to(m);
      rearm(m);
    }
    run(effects);
  }

  /** Arms the timer at the machine's next deadline if it moved. Under the lock. */
  private void rearm(ServerSession m) {
    long due = m.nextDeadline();
    if (due == timerAt) {
      return;
    }
    ScheduledFuture<?> armed = timer;
    if (armed != null) {
      armed.cancel(false);
      timer = null;
    }
    timerAt = due;
    Channel c = channel;
    if (due != Long.MAX_VALUE && c != null) {
      long delay = Math.max(0, due - System.nanoTime());
      timer = c.eventLoop().schedule(this::tick, delay, TimeUnit.NANOSECONDS);
    }
  }

  private void tick() {
    synchronized (lock) {
      timer = null;
      timerAt = Long.MAX_VALUE;
    }
    step(m -> m.tick(Moment.now()));
  }

  /** Carries out {@code effects} in order; outside the lock. */
  private void run(List<ServerEffect> effects) {
    runner.run(effects);
  }

  /** An open this connection asked for could not be proposed: the node is shutting down. */
  void openNotSubmitted() {
    step(m -> m.openNotSubmitted("the server is shutting down"));
  }

  private Principal whoOrAnonymous() {
    Principal who = principal();
    return who == null ? Principal.ANONYMOUS : who;
  }
}
