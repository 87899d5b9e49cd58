package io.semafor.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the reply bytes queued for one connection. A client that sends requests but does not read
 * the replies stops being read from once its queue passes the high water mark ({@link
 * Connection#channelWritabilityChanged}), but replies still come for what it sent before and for
 * its waiters granted later; past {@link ClientLimits#maxUnreadBytes()} the connection is closed
 * (its session lives on until its TTL, so a slow client can resume and have its kept replies sent
 * again). Sits next to the head of the pipeline, where frames are already bytes. Runs on the
 * channel's event loop only.
 */
final class UnreadCap extends ChannelOutboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(UnreadCap.class);

  private final long maxUnreadBytes;
  private boolean closing;

  UnreadCap(long maxUnreadBytes) {
    this.maxUnreadBytes = maxUnreadBytes;
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // closing: nothing to do if it fails
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    ChannelOutboundBuffer queued = ctx.channel().unsafe().outboundBuffer();
    if (!closing
        && queued != null
        && msg instanceof ByteBuf bytes
        && queued.totalPendingWriteBytes() + bytes.readableBytes() > maxUnreadBytes) {
      closing = true;
      // A Fatal would wait behind what the client does not read: it would never arrive. Close
      // now; the write below then fails as on any closed connection.
      log.info(
          "closing connection {}: maxUnreadBytes ({}) of replies queued that its client does not"
              + " read",
          ctx.channel(),
          maxUnreadBytes);
      ctx.close();
    }
    ctx.write(msg, promise);
  }
}
