package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** maxUnreadBytes: replies queued and not taken by the client past the cap close the connection. */
class UnreadCapTest {
  private static final int KIB = 1024;

  @Test
  void repliesQueuedUnderTheCapAreKept() {
    EmbeddedChannel channel = new EmbeddedChannel(new UnreadCap(64 * KIB));
    // written, not flushed: they stay queued as for a client that does not read
    ChannelFuture first = channel.write(Unpooled.wrappedBuffer(new byte[30 * KIB]));
    ChannelFuture second = channel.write(Unpooled.wrappedBuffer(new byte[30 * KIB]));
    assertThat(channel.isOpen()).isTrue();
    assertThat(first.isDone() || second.isDone()).as("still queued").isFalse();
    channel.finishAndReleaseAll();
  }

  @Test
  void aReplyThatWouldQueuePastTheCapClosesTheConnection() {
    EmbeddedChannel channel = new EmbeddedChannel(new UnreadCap(64 * KIB));
    ChannelFuture first = channel.write(Unpooled.wrappedBuffer(new byte[40 * KIB]));
    ChannelFuture second = channel.write(Unpooled.wrappedBuffer(new byte[40 * KIB]));
    assertThat(channel.isOpen()).isFalse();
    assertThat(second.cause()).as("the write past the cap").isNotNull();
    assertThat(first.cause()).as("what was queued, dropped with the connection").isNotNull();
    channel.finishAndReleaseAll();
  }
}
