package io.semafor.client.internal;

import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ServerFrame;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One TCP connection to a server, read and written with blocking I/O. Reads keep a partial frame
 * across socket timeouts, so a reader can give up the connection between frames without losing
 * bytes. Reading and writing are each single-threaded by contract (the caller serialises).
 */
final class Wire implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final InetSocketAddress address;
  private final int maxFrameBytes;
  private byte[] buffer = new byte[64 * 1024];
  private int start;
  private int end;

  private Wire(Socket socket, InetSocketAddress address, int maxFrameBytes) throws IOException {
    this.socket = socket;
    this.address = address;
    this.maxFrameBytes = maxFrameBytes;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
  }

  /**
   * Connects, with reads that time out after {@code readTimeoutMillis} so that {@link #read}
   * returns to its caller regularly.
   */
  static Wire connect(InetSocketAddress address, int connectTimeoutMillis, int readTimeoutMillis)
      throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setKeepAlive(true);
      socket.connect(address, connectTimeoutMillis);
      socket.setSoTimeout(readTimeoutMillis);
      return new Wire(socket, address, Frames.DEFAULT_MAX_FRAME_BYTES);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  InetSocketAddress address() {
    return address;
  }

  /** Writes one encoded frame ({@link Frames#encode}) in one call. */
  void write(byte[] frame) throws IOException {
    out.write(frame);
  }

  /**
   * The next frame, or null if the read timed out before a whole frame had arrived (what did arrive
   * is kept for the next call).
   *
   * @throws EOFException if the server closed the connection
   */
  @Nullable ServerFrame read() throws IOException {
    while (true) {
      int available = end - start;
      if (available >= Frames.PREFIX_BYTES) {
        int length =
            (buffer[start] & 0xff) << 24
                | (buffer[start + 1] & 0xff) << 16
                | (buffer[start + 2] & 0xff) << 8
                | (buffer[start + 3] & 0xff);
        if (length <= 0 || length > maxFrameBytes) {
          throw new IOException("bad frame length " + Integer.toUnsignedString(length));
        }
        if (available >= Frames.PREFIX_BYTES + length) {
          ServerFrame frame =
              ServerFrame.parser().parseFrom(buffer, start + Frames.PREFIX_BYTES, length);
          start += Frames.PREFIX_BYTES + length;
          return frame;
        }
        makeRoom(Frames.PREFIX_BYTES + length);
      } else {
        makeRoom(Frames.PREFIX_BYTES);
      }
      try {
        int n = in.read(buffer, end, buffer.length - end);
        if (n < 0) {
          throw new EOFException("the server closed the connection");
        }
        end += n;
      } catch (SocketTimeoutException timedOut) {
        return null;
      }
    }
  }

  /** Makes the buffer able to hold {@code frameBytes} from {@link #start}. */
  private void makeRoom(int frameBytes) {
    if (start == end) {
      start = 0;
      end = 0;
    }
    if (buffer.length - start < frameBytes) {
      byte[] target =
          frameBytes > buffer.length ? new byte[Math.max(frameBytes, buffer.length * 2)] : buffer;
      System.arraycopy(buffer, start, target, 0, end - start);
      end -= start;
      start = 0;
      buffer = target;
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
