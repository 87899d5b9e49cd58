package io.semafor.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MicroRaft's {@link Transport} over TCP on a {@link NodeLoop}: one outgoing connection per peer
 * for what this member sends, and a listening port for what peers send, each message one frame (a
 * 4-byte length, then {@link PeerCodec}'s bytes).
 *
 * <p>Sending never waits and never buffers without bound, as MicroRaft expects of a transport (its
 * messages may be lost; Raft sends again): a message to a peer not connected yet starts a
 * connection (at most one attempt per 100 ms per peer) and waits for it, up to 64 per peer (the
 * oldest dropped first; all dropped if the connection fails); a message to a peer whose connection
 * holds more than 8 MiB unwritten (a peer that does not read) is dropped, and so is a message
 * longer than the frame limit. A frame that is not a message ({@link
 * MalformedPeerMessageException}) or longer than the limit closes the connection it came on and
 * reaches nothing.
 *
 * <p>{@link #send} and {@link #isReachable} are called by the node on its loop; the other methods
 * from any thread.
 */
public final class PeerTransport implements Transport, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PeerTransport.class);

  /** The longest frame read or sent: a batch of entries, or a snapshot chunk. */
  public static final int MAX_FRAME_BYTES = 64 << 20;

  private static final AttributeKey<MemberEndpoint> SENDER =
      AttributeKey.valueOf("semafor.peer.sender");

  /** Messages kept per member while connecting to it; older ones are dropped first. */
  private static final int MAX_WAITING = 64;

  private static final long REDIAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** Where host names are looked up: one daemon thread for every transport in the JVM. */
  private static final ExecutorService LOOKUPS =
      Executors.newSingleThreadExecutor(new DefaultThreadFactory("peer-lookups", true));

  private static final WriteBufferWaterMark UNWRITTEN = new WriteBufferWaterMark(4 << 20, 8 << 20);

  private final NodeLoop loop;
  private final @Nullable PeerSsl ssl;
  private final PeerCodec codec = new PeerCodec();
  private final Channel server;
  private volatile Consumer<RaftMessage> receiver = m -> {};
  private volatile Consumer<GroupControl> controlReceiver = m -> {};

  /** Outgoing connections by peer, and when each was last dialled; touched only on the loop. */
  private final Map<MemberEndpoint, Channel> links = new HashMap<>();

  private final Map<MemberEndpoint, Long> dialled = new HashMap<>();

  /** Messages for members being connected to, oldest first; touched only on the loop. */
  private final Map<MemberEndpoint, ArrayDeque<Outgoing>> waiting = new HashMap<>();

  /** A message to send: Raft's, or one of the members' own ({@link GroupControl}). */
  private sealed interface Outgoing {
    /** Writes the message's bytes (after the frame's length). */
    void writeTo(ByteBuf frame);

    /** Its name, for a log line. */
    String name();
  }

  private record RaftOut(RaftMessage message, PeerCodec codec) implements Outgoing {
    @Override
    public void writeTo(ByteBuf frame) {
      codec.write(message, frame);
    }

    @Override
    public String name() {
      return message.getClass().getSimpleName();
    }
  }

  private record ControlOut(GroupControl message) implements Outgoing {
    @Override
    public void writeTo(ByteBuf frame) {
      ControlCodec.write(message, frame);
    }

    @Override
    public String name() {
      return message.getClass().getSimpleName();
    }
  }

  /** Connections peers opened to this member, closed with it. */
  private final ChannelGroup inbound;

  private volatile boolean closed;

  /** Peers being probed now, so that one peer's several closing connections probe it once. */
  private final Set<MemberEndpoint> probing = new HashSet<>();

  private volatile Consumer<MemberEndpoint> peerGone = peer -> {};
  private final AtomicLong peersGone = new AtomicLong();

  private final AtomicLong droppedUnconnected = new AtomicLong();
  private final AtomicLong droppedOversized = new AtomicLong();
  private final AtomicLong droppedUnwritable = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();

  /** When each member last sent this one anything. */
  private final HeardFrom heardFrom = new HeardFrom();

  /**
   * Listens on {@code self}'s host and port, on {@code loop}. Messages received before {@link
   * #deliverTo} are dropped.
   *
   * @throws io.netty.channel.ChannelException if the port cannot be bound
   */
  public PeerTransport(MemberEndpoint self, NodeLoop loop) {
    this(self, loop, null);
  }

  /**
   * Listens on {@code self}'s host and port, on {@code loop}, with mutual TLS on every connection
   * when {@code ssl} is given (a peer that fails the handshake is closed and logged).
   *
   * @throws io.netty.channel.ChannelException if the port cannot be bound
   */
  PeerTransport(MemberEndpoint self, NodeLoop loop, @Nullable PeerSsl ssl) {
    this.loop = loop;
    this.ssl = ssl;
    this.inbound = new DefaultChannelGroup("peers of " + self.id(), loop.eventLoop());
    this.server =
        new ServerBootstrap()
            .group(loop.eventLoop())
            .channel(loop.serverChannel())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    inbound.add(ch);
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.accepting(ch.alloc()));
                    }
                    ch.pipeline()
                        .addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME_BYTES, 0, 4, 0, 4))
                        .addLast(new Inbound());
                  }
                })
            .bind(new InetSocketAddress(self.host(), self.port()))
            .syncUninterruptibly()
            .channel();
  }

  /** When each member last sent this one a frame. */
  HeardFrom heardFrom() {
    return heardFrom;
  }

  /** Where received messages go from now on: the node's {@code handle}, called on the loop. */
  public void deliverTo(Consumer<RaftMessage> receiver) {
    this.receiver = receiver;
  }

  /** Where received {@link GroupControl} messages go from now on; called on the loop. */
  void deliverControlTo(Consumer<GroupControl> receiver) {
    this.controlReceiver = receiver;
  }

  @Override
  public void send(RaftEndpoint target, RaftMessage message) {
    send((MemberEndpoint) target, new RaftOut(message, codec));
  }

  /**
   * Sends one of the members' own messages to {@code target}, as Raft's are sent (it may be lost);
   * from any thread.
   */
  void send(MemberEndpoint target, GroupControl message) {
    if (loop.inLoop()) {
      send(target, new ControlOut(message));
    } else {
      try {
        loop.execute(() -> send(target, new ControlOut(message)));
      } catch (RejectedExecutionException e) {
        // the loop is stopped: lost, as a message to a closed transport is
      }
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a void promise: a failed write closes the link
  private void send(MemberEndpoint peer, Outgoing message) {
    Channel link = linkTo(peer);
    if (link == null) {
      // kept for the connection being made: a vote request to a member this one never wrote to
      // before (followers only answer their leader) would otherwise be lost, and the election
      // with it until MicroRaft's next timeout
      ArrayDeque<Outgoing> queue = waiting.computeIfAbsent(peer, p -> new ArrayDeque<>());
      if (queue.size() == MAX_WAITING) {
        queue.removeFirst();
        droppedUnconnected.incrementAndGet();
      }
      queue.addLast(message);
      return;
    }
    if (!link.isWritable()) {
      droppedUnwritable.incrementAndGet();
      return;
    }
    ByteBuf frame = link.alloc().ioBuffer();
    try {
      frame.writeInt(0);
      message.writeTo(frame);
      frame.setInt(0, frame.readableBytes() - 4);
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
    if (frame.readableBytes() - 4 > MAX_FRAME_BYTES) {
      // the peer would close the connection on it, and Raft would send it again and again
      int bytes = frame.readableBytes();
      frame.release();
      droppedOversized.incrementAndGet();
      log.warn(
          "dropped a {} to {}: {} bytes, over the {}-byte frame limit",
          message.name(),
          peer.id(),
          bytes,
          MAX_FRAME_BYTES);
      return;
    }
    link.writeAndFlush(frame, link.voidPromise());
  }

  @Override
  public boolean isReachable(RaftEndpoint endpoint) {
    Channel link = links.get(endpoint);
    return link != null && link.isActive();
  }

  /** Messages dropped because their peer could not be connected to, or too many waited. */
  public long droppedUnconnected() {
    return droppedUnconnected.get();
  }

  /** Messages dropped because their peer's connection held too much unwritten. */
  public long droppedUnwritable() {
    return droppedUnwritable.get();
  }

  /**
   * Messages dropped because they were longer than {@link #MAX_FRAME_BYTES}: a sign that the node's
   * batch size times its largest entry is set too high.
   */
  public long droppedOversized() {
    return droppedOversized.get();
  }

  /** Connections closed for a frame that was not a message. */
  public long malformedFrames() {
    return malformed.get();
  }

  /**
   * Stops listening and closes every connection; waits at most 5 s unless called on the loop. A
   * second call does nothing.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (loop.inLoop()) {
      closeAll();
      return;
    }
    server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    try {
      loop.eventLoop().submit(this::closeAll).awaitUninterruptibly(5, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      // the loop is already stopped, and its channels with it
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  private void closeAll() {
    server.close();
    inbound.close();
    links.values().forEach(Channel::close);
    links.clear();
  }

  /**
   * The connection to {@code peer} if it is up; else dials it, unless dialled just now. A host
   * given by name is looked up on a thread of its own, never on the loop, whose every pause is a
   * pause of Raft's heartbeats.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the lookup's outcome is handled in its stage
  private @Nullable Channel linkTo(MemberEndpoint peer) {
    Channel link = links.get(peer);
    if (link != null && link.isActive()) {
      return link;
    }
    if (link != null && link.isOpen()) {
      return null; // still connecting
    }
    long now = System.nanoTime();
    Long last = dialled.get(peer);
    if (!closed && (last == null || now - last >= REDIAL_NANOS)) {
      dialled.put(peer, now);
      links.remove(peer);
      if (peer.hostIsAddress()) {
        links.put(peer, dial(peer, new InetSocketAddress(peer.host(), peer.port())));
      } else {
        CompletableFuture.supplyAsync(
                () -> new InetSocketAddress(peer.host(), peer.port()), LOOKUPS)
            .thenAcceptAsync(
                address -> {
                  if (!closed && !address.isUnresolved() && !links.containsKey(peer)) {
                    links.put(peer, dial(peer, address));
                  }
                },
                loop.eventLoop());
      }
    }
    return null;
  }

  /** Where {@link #probe} reports a peer whose port refuses connections. */
  public void onPeerGone(Consumer<MemberEndpoint> listener) {
    this.peerGone = listener;
  }

  /**
   * After a peer's connection to this member closed: dials it once, and if its port refuses the
   * connection (its process is gone: the kernel answers for a port nobody listens on), tells the
   * {@link #onPeerGone} listener at once, on the loop. A peer that answers, or that cannot be
   * reached at all (a partition, where nothing answers), is left to Raft's own timeouts. Only host
   * addresses given as IP literals are probed, so the loop never waits on a name lookup.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the listener handles every outcome
  private void probe(MemberEndpoint peer) {
    if (closed || !peer.hostIsAddress() || !probing.add(peer)) {
      return;
    }
    new Bootstrap()
        .group(loop.eventLoop())
        .channel(loop.socketChannel())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1_000)
        .handler(new ChannelInboundHandlerAdapter())
        .connect(new InetSocketAddress(peer.host(), peer.port()))
        .addListener(
            (ChannelFuture attempt) -> {
              probing.remove(peer);
              if (attempt.isSuccess()) {
                attempt.channel().close();
              } else if (attempt.cause() instanceof ConnectException && !closed) {
                peersGone.incrementAndGet();
                peerGone.accept(peer);
              }
            });
  }

  /** Peers reported gone by {@link #probe}. */
  public long peersGone() {
    return peersGone.get();
  }

  @SuppressWarnings("FutureReturnValueIgnored") // the listener handles both outcomes
  private Channel dial(MemberEndpoint peer, InetSocketAddress address) {
    ChannelFuture connecting =
        new Bootstrap()
            .group(loop.eventLoop())
            .channel(loop.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1_000)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, UNWRITTEN)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.dialling(ch.alloc(), peer));
                    }
                    // the frames one loop turn writes to a peer go out in one flush, without a hop
                    ch.pipeline()
                        .addLast(new FlushConsolidationHandler(256, true))
                        .addLast(new Outbound(peer));
                  }
                })
            .connect(address);
    connecting.addListener(
        (ChannelFuture done) -> {
          ArrayDeque<Outgoing> queue = waiting.remove(peer);
          if (queue == null) {
            return;
          }
          if (done.isSuccess() && !closed) {
            queue.forEach(message -> send(peer, message));
          } else {
            droppedUnconnected.addAndGet(queue.size());
          }
        });
    return connecting.channel();
  }

  /** The TLS failure behind {@code cause} (Netty wraps a handshake's in a decoder's), or null. */
  private static javax.net.ssl.@Nullable SSLException tlsFailure(Throwable cause) {
    if (cause instanceof javax.net.ssl.SSLException tls) {
      return tls;
    }
    return cause.getCause() instanceof javax.net.ssl.SSLException tls ? tls : null;
  }

  /** The end of a connection this member opened: nothing comes back on it but its failure. */
  private static final class Outbound extends ChannelInboundHandlerAdapter {
    private final MemberEndpoint peer;

    Outbound(MemberEndpoint peer) {
      this.peer = peer;
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      javax.net.ssl.SSLException tls = tlsFailure(cause);
      if (tls != null) {
        log.warn("TLS with member {} failed: {}", peer.id(), tls.getMessage());
      } else {
        log.debug("closing the connection to member {}: {}", peer.id(), cause.toString());
      }
      ctx.close();
    }
  }

  private final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      RaftMessage message;
      try {
        if (ControlCodec.isControl(frame)) {
          GroupControl control = ControlCodec.read(frame);
          ctx.channel().attr(SENDER).set(control.sender());
          heardFrom.heard(control.sender().id(), System.nanoTime());
          controlReceiver.accept(control);
          return;
        }
        message = codec.read(frame);
      } catch (MalformedPeerMessageException e) {
        malformed.incrementAndGet();
        log.warn(
            "closing peer connection from {}: {}", ctx.channel().remoteAddress(), e.getMessage());
        ctx.close();
        return;
      }
      if (message.getSender() instanceof MemberEndpoint sender) {
        ctx.channel().attr(SENDER).set(sender);
        heardFrom.heard(sender.id(), System.nanoTime());
      }
      receiver.accept(message);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      MemberEndpoint sender = ctx.channel().attr(SENDER).get();
      if (sender != null) {
        probe(sender);
      }
      ctx.fireChannelInactive();
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // a frame over the limit, the connection reset, a peer failing TLS: this connection is done
      javax.net.ssl.SSLException tls = tlsFailure(cause);
      if (tls != null) {
        log.warn("TLS with {} failed: {}", ctx.channel().remoteAddress(), tls.getMessage());
      }
      log.debug(
          "closing peer connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }
  }
}
