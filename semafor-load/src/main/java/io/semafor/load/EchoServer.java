package io.semafor.load;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;

/**
 * The floor of the load generator: a TCP echo server on the same Netty transport as the Semafor
 * server, echoing whatever arrives. Prints {@code echo listening on PORT} and runs until killed.
 * Args: [port] (default 0: a free one).
 */
public final class EchoServer {
  private EchoServer() {}

  public static void main(String[] args) throws InterruptedException {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    boolean epoll = Epoll.isAvailable();
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            Runtime.getRuntime().availableProcessors(),
            epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    Channel listener =
        new ServerBootstrap()
            .group(group)
            .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              @SuppressWarnings("FutureReturnValueIgnored") // void promise
                              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush((ByteBuf) msg, ctx.voidPromise());
                              }
                            });
                  }
                })
            .bind("127.0.0.1", port)
            .sync()
            .channel();
    System.out.println(
        "echo listening on " + ((InetSocketAddress) listener.localAddress()).getPort());
    System.out.flush();
    listener.closeFuture().sync();
  }
}
