package io.semafor.server;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.semafor.protocol.v1.ClientFrame;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link FrameCodec.Decoder} makes of a stream of bytes, given to it in pieces as a connection
 * would: the frames it decoded, then whether it refused the rest, as the channel sees it.
 */
record FrameBytes(List<ClientFrame> frames, boolean refused) {
  /** The server's default limit on a frame's length. */
  static final int MAX_FRAME_BYTES = 1 << 20;

  /**
   * Decodes {@code bytes} given in pieces of {@code piece} bytes (the whole at once if it is at
   * least their length). A refusal must be one the decoder documents: a length out of range ({@link
   * TooLongFrameException}) or a body that is no {@link ClientFrame} (a {@link DecoderException}
   * caused by {@link InvalidProtocolBufferException}); any other exception propagates, a finding.
   */
  static FrameBytes decode(byte[] bytes, int piece) {
    // the server's default budget and frame timeout: one input never reaches either
    EmbeddedChannel channel =
        new EmbeddedChannel(
            new FrameCodec.Decoder(
                MAX_FRAME_BYTES,
                new PendingFrameBudget(ClientLimits.DEFAULT.maxPendingFrameBytes()),
                ClientLimits.DEFAULT.frameTimeout().toNanos()));
    List<ClientFrame> frames = new ArrayList<>();
    boolean refused = false;
    for (int at = 0; at < bytes.length && !refused; at += piece) {
      int from = at;
      int n = Math.min(piece, bytes.length - at);
      refused = refused(() -> channel.writeInbound(Unpooled.wrappedBuffer(bytes, from, n)));
      for (Object m = channel.readInbound(); m != null; m = channel.readInbound()) {
        frames.add((ClientFrame) m);
      }
    }
    // closing decodes what is left once more, and a refused length is refused again
    boolean refusedAtEnd = refused(channel::finishAndReleaseAll);
    return new FrameBytes(frames, refused || refusedAtEnd);
  }

  /** Whether {@code step} was refused as the decoder documents; another exception propagates. */
  private static boolean refused(Runnable step) {
    try {
      step.run();
      return false;
    } catch (TooLongFrameException e) {
      return true;
    } catch (DecoderException e) {
      if (e.getCause() instanceof InvalidProtocolBufferException) {
        return true;
      }
      throw e;
    }
  }
}
