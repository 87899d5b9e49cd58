package io.semafor.protocol;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Length-prefixed frames: a 4-byte big-endian length N, then N bytes of one protobuf message
 * ({@code ClientFrame} or {@code ServerFrame} of {@code semafor.proto}). Stateless and thread-safe;
 * the streams are the caller's to synchronise.
 */
public final class Frames {
  /** The protocol version {@code Hello} and {@code Welcome} carry. */
  public static final int PROTOCOL_VERSION = 1;

  /** The largest frame accepted by default (the frame size of docs/semantics.md#limits). */
  public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;

  /** Bytes of the length prefix. */
  public static final int PREFIX_BYTES = 4;

  private Frames() {}

  /** The frame for {@code message}: its length prefix and its bytes, in one array. */
  public static byte[] encode(MessageLite message) {
    int size = message.getSerializedSize();
    byte[] frame = new byte[PREFIX_BYTES + size];
    frame[0] = (byte) (size >>> 24);
    frame[1] = (byte) (size >>> 16);
    frame[2] = (byte) (size >>> 8);
    frame[3] = (byte) size;
    CodedOutputStream out = CodedOutputStream.newInstance(frame, PREFIX_BYTES, size);
    try {
      message.writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialise into an array of its own size", e);
    }
    return frame;
  }

  /** Writes one frame. Does not flush. */
  public static void write(OutputStream out, MessageLite message) throws IOException {
    out.write(encode(message));
  }

  /**
   * Reads one frame's bytes.
   *
   * @throws EOFException if the stream ends, even within the frame
   * @throws FrameTooLargeException if the frame is longer than {@code maxBytes} (or empty)
   */
  public static byte[] read(DataInputStream in, int maxBytes) throws IOException {
    int length = in.readInt();
    if (length <= 0 || length > maxBytes) {
      throw new FrameTooLargeException(length, maxBytes);
    }
    byte[] frame = new byte[length];
    in.readFully(frame);
    return frame;
  }

  /** A frame's length prefix is out of bounds; the connection cannot be resynchronised. */
  public static final class FrameTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    FrameTooLargeException(int length, int maxBytes) {
      super("frame of " + Integer.toUnsignedString(length) + " bytes, limit " + maxBytes);
    }
  }
}
