package io.semafor.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Server-Sent Events answer (text/event-stream, chunked). Events are written as they come; a
 * comment line every keep-alive period makes a vanished reader's connection fail its next write, so
 * it is noticed within about two periods, and then {@link #onEnd} runs. A reader that does not read
 * holds at most the channel's high-water mark: the writer waits for it to drain, up to the write
 * timeout, then the connection is closed. Thread-safe.
 */
@SuppressWarnings("FutureReturnValueIgnored") // a failed write or close closes the channel
public final class EventStream {
  private final Channel channel;
  private final ScheduledFuture<?> keepAlive;
  private volatile boolean ended;

  private EventStream(Channel channel, Duration every) {
    this.channel = channel;
    long ms = Math.max(1, every.toMillis());
    this.keepAlive =
        channel
            .eventLoop()
            .scheduleAtFixedRate(() -> write(": keep-alive\n\n"), ms, ms, TimeUnit.MILLISECONDS);
  }

  static EventStream open(
      Channel channel, Duration keepAlive, Map<String, String> headers, Runnable finished) {
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    head.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
    headers.forEach(head.headers()::set);
    HttpUtil.setTransferEncodingChunked(head, true);
    channel.writeAndFlush(head).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    EventStream stream = new EventStream(channel, keepAlive);
    channel
        .closeFuture()
        .addListener(
            f -> {
              stream.ended = true;
              stream.keepAlive.cancel(false);
              finished.run();
            });
    return stream;
  }

  /**
   * Runs {@code action} once the stream ends (the reader left, a write failed, or {@link #close}).
   */
  public void onEnd(Runnable action) {
    channel.closeFuture().addListener(f -> action.run());
  }

  /** Whether the stream has ended. */
  public boolean ended() {
    return ended;
  }

  /**
   * Sends one event; waits (this thread) while the reader is behind, at most {@code writeTimeout},
   * then closes the stream.
   */
  public void send(long id, String event, String data, Duration writeTimeout) {
    StringBuilder b = new StringBuilder();
    if (id > 0) {
      b.append("id: ").append(id).append('\n');
    }
    b.append("event: ").append(event).append('\n');
    for (String line : data.split("\n", -1)) {
      b.append("data: ").append(line).append('\n');
    }
    sendRaw(b.append('\n').toString(), writeTimeout);
  }

  /**
   * Sends {@code text} as it is (whole events, each ending in a blank line); waits (this thread)
   * while the reader is behind, at most {@code writeTimeout}, then closes the stream.
   */
  public void sendRaw(String text, Duration writeTimeout) {
    long deadline = System.nanoTime() + writeTimeout.toNanos();
    while (!channel.isWritable() && channel.isActive()) {
      if (System.nanoTime() - deadline > 0) {
        channel.close();
        return;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    write(text);
  }

  private void write(String text) {
    if (!channel.isActive()) {
      return;
    }
    channel
        .writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8)))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }

  /** Ends the stream and its connection. */
  public void close() {
    if (channel.isActive()) {
      channel
          .writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
          .addListener(ChannelFutureListener.CLOSE);
    }
  }
}
