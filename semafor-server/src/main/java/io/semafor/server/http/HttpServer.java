package io.semafor.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.semafor.server.ListenFailed;
import io.semafor.server.ServerTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A Netty HTTP/1.1 server for any {@link Router}: TLS first when given, the HTTP codec, bodies up
 * to a bound (a larger one is answered 413 in JSON and changes nothing), an idle timeout, a write
 * timeout, JSON errors, and a graceful close. Nothing in it knows semaphores: the admin port and
 * the console serve on it too, with routes of their own (decisions 0052, 0055).
 */
@SuppressWarnings("FutureReturnValueIgnored") // a failed write or close closes the channel
public final class HttpServer implements AutoCloseable {
  /**
   * What bounds one connection: its request bodies ({@code maxBodyOption} names the option that
   * sets the bound, for the 413's message), its silence with nothing in flight, and each write.
   */
  public record Limits(
      int maxBodyBytes, String maxBodyOption, Duration idleTimeout, Duration writeTimeout) {}

  private final EventLoopGroup group;
  private final Channel listener;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final @Nullable ServerTls tls;

  private HttpServer(EventLoopGroup group, Channel listener, @Nullable ServerTls tls) {
    this.group = group;
    this.listener = listener;
    this.tls = tls;
  }

  /**
   * Listens on {@code host:port} (0: a free port).
   *
   * @param which the port it is, for the error if it cannot be bound
   * @param failures what a failed request is answered with ({@link ApiException#of}, or a mapping
   *     that knows more failures)
   * @param threads event loop threads
   * @throws ListenFailed naming {@code which} port if it cannot be bound
   */
  public static HttpServer start(
      String host,
      int port,
      ListenFailed.Port which,
      @Nullable ServerTls tls,
      Limits limits,
      Router router,
      Function<Throwable, ApiException> failures,
      int threads,
      String threadName)
      throws InterruptedException {
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            threads, new DefaultThreadFactory(threadName, true), NioIoHandler.newFactory());
    ChannelGroup[] open = new ChannelGroup[1];
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ChannelGroup g = open[0];
                    if (g != null) {
                      g.add(ch);
                    }
                    if (tls != null) {
                      ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline()
                        .addLast("http", new HttpServerCodec())
                        .addLast(
                            "body", new BoundedBody(limits.maxBodyBytes(), limits.maxBodyOption()))
                        .addLast(
                            "idle",
                            new IdleStateHandler(
                                0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                        .addLast(
                            "write-timeout",
                            new WriteTimeoutHandler(
                                limits.writeTimeout().toMillis(), TimeUnit.MILLISECONDS))
                        .addLast("route", new HttpConnection(router, failures));
                  }
                });
    Channel channel;
    try {
      channel = bootstrap.bind(host, port).sync().channel();
    } catch (Exception e) { // sync() rethrows the bind's own failure, an IOException undeclared
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      IOException io = ioCause(e);
      if (io == null) {
        throw e;
      }
      throw new ListenFailed(which, host, port, io);
    }
    HttpServer server = new HttpServer(group, channel, tls);
    open[0] = server.connections;
    return server;
  }

  private static @Nullable IOException ioCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException io) {
        return io;
      }
    }
    return null;
  }

  /** The address it listens on. */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** Whether it speaks HTTPS. */
  public boolean tls() {
    return tls != null;
  }

  /** Stops accepting connections; those open stay until {@link #close}. */
  public void stopAccepting() {
    listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** Stops accepting, closes every connection and its threads. Idempotent. */
  @Override
  public void close() {
    stopAccepting();
    connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** The aggregator, answering a body over its bound with a JSON 413 before closing. */
  private static final class BoundedBody extends HttpObjectAggregator {
    private final int max;
    private final String option;

    BoundedBody(int max, String option) {
      super(max);
      this.max = max;
      this.option = option;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      byte[] body =
          ("{\"code\":\"RESOURCE_EXHAUSTED\",\"argument\":\"body\",\"message\":\"body: larger than"
                  + " the server's "
                  + max
                  + " bytes ("
                  + option
                  + "); nothing was done\"}")
              .getBytes(StandardCharsets.UTF_8);
      FullHttpResponse response =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
              Unpooled.wrappedBuffer(body));
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      response.headers().set(HttpHeaderNames.CONNECTION, "close");
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
