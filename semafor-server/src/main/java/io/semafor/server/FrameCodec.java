package io.semafor.server;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.server.options.Durations;
import io.semafor.server.wire.ChangedFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * The frame format of {@link Frames} on Netty buffers: a 4-byte big-endian length, then one
 * protobuf message, parsed from and written into the connection's buffers without an intermediate
 * copy.
 */
final class FrameCodec {
  private FrameCodec() {}

  /**
   * Splits incoming bytes into {@link ClientFrame}s; a bad length or message fails the channel.
   *
   * <p>Bytes of an unfinished frame are held as they arrive, never at the frame's declared size up
   * front: Netty's merge cumulator grows the buffer to the next power of two of what arrived (so at
   * most twice it, and 2 MiB for a whole 1 MiB frame). What the buffer holds between reads is
   * counted against the server-wide {@link PendingFrameBudget}; the connection whose buffer would
   * go over it is closed, and so is one whose frame is not complete {@link
   * ClientLimits#frameTimeout()} after it began. Runs on the channel's event loop only.
   */
  static final class Decoder extends ByteToMessageDecoder {
    private final int maxFrameBytes;
    private final PendingFrameBudget budget;
    private final long frameTimeoutNanos;

    /** Bytes this connection holds against the budget (the buffer's capacity, if it holds any). */
    private long held;

    /** Frames decoded so far: tells whether the frame held now is the one that was held before. */
    private long decoded;

    /** {@link #decoded} when the frame held now began, or -1 if none is held. */
    private long heldFrame = -1;

    /** When the frame held now began ({@link System#nanoTime()}). */
    private long heldSince;

    private @Nullable ScheduledFuture<?> frameTimer;
    private boolean failed;

    Decoder(int maxFrameBytes, PendingFrameBudget budget, long frameTimeoutNanos) {
      this.maxFrameBytes = maxFrameBytes;
      this.budget = budget;
      this.frameTimeoutNanos = frameTimeoutNanos;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
        throws Exception {
      while (in.readableBytes() >= Frames.PREFIX_BYTES) {
        int start = in.readerIndex();
        int length = in.getInt(start);
        if (length < 0 || length > maxFrameBytes) {
          throw new TooLongFrameException(
              "maxFrameBytes ("
                  + maxFrameBytes
                  + "): a frame of "
                  + Integer.toUnsignedString(length)
                  + " bytes");
        }
        if (in.readableBytes() < Frames.PREFIX_BYTES + length) {
          return;
        }
        ByteBuffer body = in.nioBuffer(start + Frames.PREFIX_BYTES, length);
        in.readerIndex(start + Frames.PREFIX_BYTES + length);
        decoded++;
        out.add(ClientFrame.parseFrom(body));
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      if (failed) {
        ReferenceCountUtil.release(msg);
        return;
      }
      try {
        super.channelRead(ctx, msg);
      } finally {
        account(ctx);
      }
    }

    /** Counts what the buffer holds now against the budget, and times the frame it holds. */
    @SuppressWarnings("FutureReturnValueIgnored") // the timer is kept in frameTimer
    private void account(ChannelHandlerContext ctx) {
      if (failed) {
        return;
      }
      ByteBuf buffer = internalBuffer();
      long now = buffer.isReadable() ? buffer.capacity() : 0;
      if (now > held) {
        if (!budget.tryHold(now - held)) {
          fail(
              ctx,
              "maxPendingFrameBytes ("
                  + budget.max()
                  + "): the server holds too many unfinished frames to hold "
                  + buffer.readableBytes()
                  + " more bytes of this one");
          return;
        }
      } else if (now < held) {
        budget.release(held - now);
      }
      held = now;
      if (now == 0) {
        heldFrame = -1;
        cancelTimer();
        return;
      }
      if (heldFrame != decoded) {
        heldFrame = decoded;
        heldSince = System.nanoTime();
      }
      if (frameTimer == null) {
        frameTimer = ctx.executor().schedule(() -> checkFrame(ctx), frameTimeoutNanos, NANOSECONDS);
      }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the timer is kept in frameTimer
    private void checkFrame(ChannelHandlerContext ctx) {
      frameTimer = null;
      if (failed || heldFrame < 0) {
        return;
      }
      long left = heldSince + frameTimeoutNanos - System.nanoTime();
      if (left > 0) {
        frameTimer = ctx.executor().schedule(() -> checkFrame(ctx), left, NANOSECONDS);
        return;
      }
      fail(
          ctx,
          "frameTimeout ("
              + Durations.format(Duration.ofNanos(frameTimeoutNanos))
              + "): a frame begun was not finished in time");
    }

    /** Stops reading, gives the bytes back and has the connection closed, saying why. */
    private void fail(ChannelHandlerContext ctx, String why) {
      failed = true;
      ctx.channel().config().setAutoRead(false);
      giveBack();
      ctx.fireExceptionCaught(new LimitExceeded(why));
    }

    private void giveBack() {
      if (held > 0) {
        budget.release(held);
        held = 0;
      }
      heldFrame = -1;
      cancelTimer();
    }

    private void cancelTimer() {
      ScheduledFuture<?> timer = frameTimer;
      if (timer != null) {
        timer.cancel(false);
        frameTimer = null;
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      giveBack();
      failed = true; // nothing more is read; the buffer is being released
      super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
      giveBack();
    }
  }

  /** Writes each message as one frame into one buffer. */
  static final class Encoder extends MessageToByteEncoder<MessageLite> {
    @Override
    protected void encode(ChannelHandlerContext ctx, MessageLite message, ByteBuf out)
        throws Exception {
      FrameCodec.write(message, out);
    }
  }

  /**
   * Appends {@code message} to {@code out} as one frame: its length, then its bytes. On failure
   * nothing is appended (a length without its bytes would break every frame after it).
   */
  static int write(MessageLite message, ByteBuf out) throws IOException {
    return write(message.getSerializedSize(), message::writeTo, out);
  }

  /**
   * Appends {@code frame} for watch {@code id} at {@code revision} to {@code out}: its length, then
   * its bytes; on failure, nothing.
   */
  static int write(ChangedFrame frame, long id, long revision, ByteBuf out) throws IOException {
    return write(frame.size(id, revision), coded -> frame.writeTo(coded, id, revision), out);
  }

  /** A frame's bytes, written to a stream with room for exactly them. */
  private interface Body {
    void writeTo(CodedOutputStream out) throws IOException;
  }

  private static int write(int size, Body body, ByteBuf out) throws IOException {
    int start = out.writerIndex();
    try {
      CodedOutputStream coded = frame(out, size);
      body.writeTo(coded);
      return framed(out, coded, size);
    } catch (IOException | RuntimeException e) {
      out.writerIndex(start);
      throw e;
    }
  }

  /** Writes the length prefix of a {@code size}-byte frame; returns where its bytes go. */
  private static CodedOutputStream frame(ByteBuf out, int size) {
    out.ensureWritable(Frames.PREFIX_BYTES + size);
    out.writeInt(size);
    return CodedOutputStream.newInstance(out.nioBuffer(out.writerIndex(), size));
  }

  /** Ends a frame begun by {@link #frame}; returns the bytes it took, the prefix included. */
  private static int framed(ByteBuf out, CodedOutputStream coded, int size) throws IOException {
    coded.flush();
    if (coded.getTotalBytesWritten() != size) {
      throw new IllegalStateException(
          "a frame of " + size + " bytes wrote " + coded.getTotalBytesWritten());
    }
    out.writerIndex(out.writerIndex() + size);
    return Frames.PREFIX_BYTES + size;
  }
}
