package io.semafor.bench.gate;

import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.message.RaftMessage;
import io.microraft.statemachine.StateMachine;
import io.microraft.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.semafor.raft.ClusterConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The gate's MicroRaft side: a MicroRaft node whose executor is one Netty event loop, which also
 * carries the node's peer connections, so that receiving a message, running Raft and sending the
 * answers happen on one thread without a hand-off. The state machine does nothing; the log is
 * written to a file and not forced ({@link UnforcedLogStore}). Commands are batched as Semafor's
 * {@code EntrySender} batches them, each command carrying {@code commandBytes} bytes, with at most
 * {@code maxInFlight} entries in flight.
 */
final class MicroRaftReplica implements GateReplica {
  /** Items in one entry at most, as {@code EntrySender}. */
  private static final int MAX_BATCH = 8192;

  private static final String GROUP = "gate";

  private final RaftEndpoint self;
  private final Map<String, InetSocketAddress> peers = new HashMap<>();
  private final MultiThreadIoEventLoopGroup group;
  private final EventLoop loop;
  private final Class<? extends ServerChannel> serverChannel;
  private final Class<? extends SocketChannel> clientChannel;
  private final Channel server;
  private final RaftMessageCodec codec = new RaftMessageCodec();
  private final UnforcedLogStore store;
  private final RaftNode node;
  private final int commandBytes;
  private final int maxInFlight;

  /** Connections to the other members, touched only on the loop. */
  private final Map<String, Channel> links = new HashMap<>();

  private final Map<String, Long> lastDial = new HashMap<>();

  private final ConcurrentLinkedQueue<Committed> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();

  MicroRaftReplica(
      String nodeId,
      List<ClusterConfig.Peer> members,
      Path dataDir,
      boolean favoured,
      int commandBytes,
      int maxInFlight,
      boolean fsync) {
    this.self = new GateEndpoint(nodeId);
    this.commandBytes = commandBytes;
    this.maxInFlight = maxInFlight;
    IoHandlerFactory io;
    if (Epoll.isAvailable()) {
      io = EpollIoHandler.newFactory();
      serverChannel = EpollServerSocketChannel.class;
      clientChannel = EpollSocketChannel.class;
    } else {
      io = NioIoHandler.newFactory();
      serverChannel = NioServerSocketChannel.class;
      clientChannel = NioSocketChannel.class;
    }
    group = new MultiThreadIoEventLoopGroup(1, io);
    loop = group.next();
    List<RaftEndpoint> endpoints = new ArrayList<>();
    InetSocketAddress bind = null;
    for (ClusterConfig.Peer p : members) {
      endpoints.add(new GateEndpoint(p.id()));
      InetSocketAddress address = new InetSocketAddress(p.host(), p.raftPort());
      if (p.id().equals(nodeId)) {
        bind = address;
      } else {
        peers.put(p.id(), address);
      }
    }
    if (bind == null) {
      throw new IllegalArgumentException("--id: " + nodeId + " is not one of --peers");
    }
    try {
      store = new UnforcedLogStore(dataDir, fsync);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // The driving member times out first, so it is the one elected. MicroRaft counts heartbeats in
    // whole seconds: one a second, and a leader silent for 2 s is given up.
    RaftConfig config =
        RaftConfig.newBuilder()
            .setLeaderElectionTimeoutMillis(favoured ? 500 : 5_000)
            .setLeaderHeartbeatPeriodSecs(1)
            .setLeaderHeartbeatTimeoutSecs(favoured ? 2 : 10)
            .build();
    node =
        RaftNode.newBuilder()
            .setGroupId(GROUP)
            .setLocalEndpoint(self)
            .setInitialGroupMembers(endpoints)
            .setConfig(config)
            .setExecutor(new LoopExecutor())
            .setTransport(new NettyTransport())
            .setStateMachine(new NothingMachine())
            .setStore(store)
            .build();
    server =
        new ServerBootstrap()
            .group(group)
            .channel(serverChannel)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new LengthFieldBasedFrameDecoder(64 << 20, 0, 4, 0, 4))
                        .addLast(new Inbound());
                  }
                })
            .bind(bind)
            .syncUninterruptibly()
            .channel();
    node.start().join();
  }

  @Override
  public boolean leads() {
    return self.equals(node.getTerm().getLeaderEndpoint());
  }

  @Override
  public void submit(int client, Committed committed) {
    pending.add(committed);
    trySend();
  }

  /** Sends the queued commands as one entry unless {@code maxInFlight} entries are in flight. */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback handles both outcomes
  private void trySend() {
    while (!pending.isEmpty()) {
      int n = inFlight.get();
      if (n >= maxInFlight) {
        return;
      }
      if (!inFlight.compareAndSet(n, n + 1)) {
        continue;
      }
      List<Committed> batch = new ArrayList<>();
      for (Committed c; batch.size() < MAX_BATCH && (c = pending.poll()) != null; ) {
        batch.add(c);
      }
      if (batch.isEmpty()) {
        inFlight.decrementAndGet();
        continue;
      }
      byte[] payload = new byte[commandBytes * batch.size()];
      node.replicate(payload)
          .whenComplete(
              (result, failure) -> {
                for (Committed c : batch) {
                  c.done(failure == null);
                }
                inFlight.decrementAndGet();
                trySend();
              });
    }
  }

  @Override
  public long commitIndex() {
    try {
      return node.getReport().get(5, TimeUnit.SECONDS).getResult().getLog().getCommitIndex();
    } catch (Exception e) {
      return -1;
    }
  }

  @Override
  public void close() {
    try {
      node.terminate().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closing anyway
    }
    server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    try {
      store.close();
    } catch (IOException e) {
      // the file is scratch
    }
  }

  /** Runs the node's tasks on the loop: a task queued from the loop itself wakes nothing. */
  private final class LoopExecutor implements RaftNodeExecutor {
    @Override
    public void execute(Runnable task) {
      loop.execute(task);
    }

    @Override
    public void submit(Runnable task) {
      loop.execute(task);
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // MicroRaft cancels nothing it schedules
    public void schedule(Runnable task, long delay, TimeUnit unit) {
      loop.schedule(task, delay, unit);
    }
  }

  /** Sends on the loop the node runs on; a message to a member not connected yet is dropped. */
  private final class NettyTransport implements Transport {
    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a void promise: a failure closes the link
    public void send(RaftEndpoint target, RaftMessage message) {
      Channel link = linkTo((String) target.getId());
      if (link == null) {
        return;
      }
      ByteBuf frame = link.alloc().ioBuffer();
      frame.writeInt(0);
      codec.write(message, frame);
      frame.setInt(0, frame.readableBytes() - 4);
      link.writeAndFlush(frame, link.voidPromise());
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
      Channel link = links.get((String) endpoint.getId());
      return link != null && link.isActive();
    }
  }

  private @Nullable Channel linkTo(String id) {
    Channel link = links.get(id);
    if (link != null && link.isActive()) {
      return link;
    }
    long now = System.nanoTime();
    Long dialed = lastDial.get(id);
    if ((link == null || !link.isOpen())
        && (dialed == null || now - dialed > TimeUnit.MILLISECONDS.toNanos(100))) {
      lastDial.put(id, now);
      ChannelFuture dial =
          new Bootstrap()
              .group(loop)
              .channel(clientChannel)
              .option(ChannelOption.TCP_NODELAY, true)
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      // flushes the writes of one loop turn together, without a hand-off
                      ch.pipeline().addLast(new FlushConsolidationHandler(256, true));
                    }
                  })
              .connect(peers.get(id));
      links.put(id, dial.channel());
    }
    return null;
  }

  private final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      node.handle(codec.read(frame));
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** Applies nothing: the gate measures replication alone. */
  private static final class NothingMachine implements StateMachine {
    private static final byte[] NOTHING = new byte[0];

    @Override
    public @Nullable Object runOperation(long commitIndex, Object operation) {
      return null;
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunkConsumer) {
      chunkConsumer.accept(NOTHING);
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {}

    @Override
    public Object getNewTermOperation() {
      return NOTHING;
    }
  }
}
