package io.semafor.server;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.TooLongFrameException;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The frame format of {@link Frames} on Netty buffers: a 4-byte big-endian length, then one
 * protobuf message, parsed from and written into the connection's buffers without an intermediate
 * copy.
 */
final class FrameCodec {
  private FrameCodec() {}

  /** Splits incoming bytes into {@link ClientFrame}s; a bad length or message fails the channel. */
  static final class Decoder extends ByteToMessageDecoder {
    private final int maxFrameBytes;

    Decoder(int maxFrameBytes) {
      this.maxFrameBytes = maxFrameBytes;
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
        out.add(ClientFrame.parseFrom(body));
      }
    }
  }

  /** Writes each message as one frame into one buffer. */
  static final class Encoder extends MessageToByteEncoder<MessageLite> {
    @Override
    protected void encode(ChannelHandlerContext ctx, MessageLite message, ByteBuf out)
        throws Exception {
      int size = message.getSerializedSize();
      out.ensureWritable(Frames.PREFIX_BYTES + size);
      out.writeInt(size);
      int at = out.writerIndex();
      CodedOutputStream coded = CodedOutputStream.newInstance(out.nioBuffer(at, size));
      message.writeTo(coded);
      coded.flush();
      out.writerIndex(at + size);
    }
  }
}
