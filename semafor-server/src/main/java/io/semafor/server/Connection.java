package io.semafor.server;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.semafor.core.ClientInfo;
import io.semafor.core.Command;
import io.semafor.core.ErrorCode;
import io.semafor.core.Operation;
import io.semafor.core.Query;
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
import io.semafor.protocol.v1.Welcome;
import io.semafor.replication.Replicator;
import io.semafor.replication.SnapshotFile;
import java.io.IOException;
import java.time.Duration;
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
final class Connection extends SimpleChannelInboundHandler<ClientFrame> {
  private static final Logger log = LoggerFactory.getLogger(Connection.class);
  private static final ServerFrame PONG =
      ServerFrame.newBuilder().setPong(Pong.getDefaultInstance()).build();

  private final Replicator replicator;
  private final Sessions sessions;
  private final ServerConfig config;
  private final Edge edge;
  private volatile @Nullable Channel channel;

  /** The attached session; null before a Hello, while opening, or after the session ended. */
  private volatile Sessions.@Nullable Live session;

  /** The id of the last session this connection had, for requests after it ended. */
  private volatile long lastSessionId;

  private volatile boolean opening;

  Connection(Replicator replicator, Sessions sessions, ServerConfig config, Edge edge) {
    this.replicator = replicator;
    this.sessions = sessions;
    this.config = config;
    this.edge = edge;
  }

  /** The channel, once active; null before. */
  @Nullable Channel channel() {
    return channel;
  }

  /** A read in flight: where and under which id to answer it. */
  record PendingRead(Connection connection, long id) {}

  /** A snapshot asked for: where and under which id to send it. */
  record PendingSnapshot(Connection connection, long id) {}

  /**
   * The file bytes one {@code SnapshotChunk} carries: half the default frame limit, so a chunk with
   * its few header fields always fits a client's frame limit.
   */
  static final int SNAPSHOT_CHUNK_BYTES = 512 * 1024;

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    channel = ctx.channel();
    super.channelActive(ctx);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, ClientFrame frame) {
    try {
      switch (frame.getBodyCase()) {
        case REQUEST -> request(frame.getRequest());
        case KEEP_ALIVE -> keepAlive(frame.getKeepAlive());
        case HELLO -> hello(frame.getHello());
        case READ -> read(frame.getRead());
        case SNAPSHOT ->
            replicator.snapshot(new PendingSnapshot(this, frame.getSnapshot().getId()));
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
    if (hello.getSessionId() != 0) {
      resume(hello.getSessionId());
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
    opening = true;
    replicator.submit(
        new Command.OpenSession(
            ttl,
            new ClientInfo(hello.getClientName(), hello.getClientHost(), hello.getClientPid())),
        this);
  }

  private void resume(long id) {
    Sessions.Live live = sessions.get(id);
    if (live == null) {
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
  }

  /** The machine refused to open a session. Called on the applying thread. */
  void openFailed(ErrorCode code, String message) {
    opening = false;
    send(welcomeFailure(code, message));
  }

  private ServerFrame welcome(long id, long ttl, boolean resumed) {
    return ServerFrame.newBuilder()
        .setWelcome(
            Welcome.newBuilder()
                .setProtocolVersion(Frames.PROTOCOL_VERSION)
                .setSessionId(id)
                .setSessionTtlNs(ttl)
                .setResumed(resumed)
                .setRevision(edge.lastRevision())
                .setServer("semafor"))
        .build();
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
    long sessionId = sessionIdOrFail("request");
    if (sessionId == 0) {
      return;
    }
    Operation op;
    try {
      op = WireRequests.operation(request);
    } catch (WireRequests.Malformed e) {
      send(
          ServerFrame.newBuilder()
              .setResponse(
                  Response.newBuilder()
                      .setId(request.getId())
                      .setFailure(WireResults.failure(ErrorCode.INVALID_ARGUMENT, e.reason())))
              .build());
      return;
    }
    replicator.submit(
        new Command.Request(sessionId, request.getId(), request.getAcksList(), op), this);
  }

  private void keepAlive(KeepAlive keepAlive) {
    long sessionId = sessionIdOrFail("keepAlive");
    if (sessionId == 0) {
      return;
    }
    if (keepAlive.getAcksCount() > 0) {
      replicator.submit(new Command.Acknowledge(sessionId, keepAlive.getAcksList()), this);
    }
    send(PONG);
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

  private void read(Read read) {
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
    replicator.read(query, new PendingRead(this, read.getId()));
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
      if (expired) {
        fatal(ErrorCode.SESSION_EXPIRED, ended(id));
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

  /** Says why, then closes this connection. */
  void fatal(ErrorCode code, String message) {
    Channel c = channel;
    if (c == null) {
      return;
    }
    Failure failure = WireResults.failure(code, message);
    c.writeAndFlush(
            ServerFrame.newBuilder().setFatal(Fatal.newBuilder().setFailure(failure)).build())
        .addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    Sessions.Live live = session;
    if (live != null) {
      sessions.detach(live.id, this);
    }
    super.channelInactive(ctx);
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof TooLongFrameException) {
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
