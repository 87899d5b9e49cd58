package io.semafor.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Linux epoll when it is there and wanted, Java NIO otherwise. */
record Transport(
    String name, IoHandlerFactory handlers, Class<? extends ServerSocketChannel> serverChannel) {

  static Transport choose(boolean nativeWanted) {
    if (nativeWanted && Epoll.isAvailable()) {
      return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
    }
    return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
  }

  EventLoopGroup group(int threads, String threadName) {
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(threadName, true), handlers);
  }
}
