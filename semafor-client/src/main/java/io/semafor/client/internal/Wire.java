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
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;

/**
 * One TCP connection to a server, with TLS if asked, for the session ({@link Link}), a watch and a
 * snapshot download alike. Read and written with blocking I/O and no socket timeouts (unless {@link
 * #readTimeout} asks for one): a JDK socket given any timeout (connect or read) switches to
 * non-blocking mode for good, after which every read costs a failed read, a poll and a read instead
 * of one read. Connecting and the handshake are bounded instead by a watchdog that closes the
 * socket if {@link #connected} is not called in time. Reading and writing are each single-threaded
 * by contract (the caller serialises).
 */
public final class Wire implements AutoCloseable {
  private final Socket socket;

  /** The TLS layer over {@link #socket}, or null for plain TCP. */
  private final @Nullable SSLSocket tls;

  private final InputStream in;
  private final OutputStream out;
  private final InetSocketAddress address;
  private final int maxFrameBytes;
  private byte[] buffer = new byte[64 * 1024];
  private int start;
  private int end;
  private final ScheduledFuture<?> watchdog;
  private volatile boolean watchdogFired;

  /** Whether the server has sent a byte on this connection. Read and written by the reader. */
  private boolean heard;

  private Wire(
      Socket socket,
      InetSocketAddress address,
      Duration handshakeTimeout,
      @Nullable SSLContext context,
      boolean verifyHostname)
      throws IOException {
    this.socket = socket;
    this.address = address;
    this.maxFrameBytes = Frames.DEFAULT_MAX_FRAME_BYTES;
    this.watchdog =
        Watchdog.after(
            handshakeTimeout,
            () -> {
              watchdogFired = true;
              close();
            });
    try {
      socket.setTcpNoDelay(true);
      socket.setKeepAlive(true);
      socket.connect(address);
      if (context == null) {
        this.tls = null;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
      } else {
        SSLSocket layered =
            TlsSockets.layer(
                context, verifyHostname, socket, address.getHostString(), address.getPort());
        this.tls = layered;
        this.in = layered.getInputStream();
        this.out = layered.getOutputStream();
      }
    } catch (IOException e) {
      close();
      throw timedOutOr(context == null ? e : answeredInPlainText(e));
    }
  }

  /**
   * {@code e}, or a {@link TlsMismatch} if the server answered the TLS handshake with a byte that
   * cannot start a TLS record: a plaintext server.
   */
  private IOException answeredInPlainText(IOException e) {
    if (socket instanceof TlsMismatch.FirstByteSocket recorded
        && recorded.first() >= 0
        && !TlsMismatch.startsATlsRecord(recorded.first())) {
      return TlsMismatch.serverIsPlaintext(address, e);
    }
    return e;
  }

  /**
   * What to throw when the server closed the connection: {@link TlsMismatch} if it closed a
   * plaintext connection before sending a byte and it speaks TLS (its TLS layer closes on a record
   * that is not TLS, without a word).
   */
  private IOException closed() {
    if (tls == null && !heard && TlsMismatch.speaksTls(address, TLS_PROBE_TIMEOUT)) {
      return TlsMismatch.serverSpeaksTls(address);
    }
    return new EOFException("the server closed the connection");
  }

  /** How long asking a silent server whether it speaks TLS may take, per step. */
  private static final Duration TLS_PROBE_TIMEOUT = Duration.ofSeconds(1);

  /**
   * Connects; the connection and the handshake that follows must be done, and {@link #connected}
   * called, within {@code handshakeTimeout}, or the socket is closed under them. An unresolved
   * {@code address} (a leader named by a follower) is looked up here, for every caller.
   */
  public static Wire connect(
      InetSocketAddress address,
      Duration handshakeTimeout,
      @Nullable SSLContext tls,
      boolean verifyHostname)
      throws IOException {
    InetSocketAddress target =
        address.isUnresolved()
            ? new InetSocketAddress(address.getHostString(), address.getPort()) // looks it up
            : address;
    // under TLS, a socket that records what the server answered first (TlsMismatch)
    Socket socket = tls == null ? new Socket() : new TlsMismatch.FirstByteSocket();
    return new Wire(socket, target, handshakeTimeout, tls, verifyHostname);
  }

  /**
   * From now on a read that waits longer than {@code timeout} fails with a {@link
   * SocketTimeoutException}: for a connection that must notice a silent server by itself (a watch,
   * a snapshot download). Not for a session's connection, which {@link Link} watches: a socket
   * given a read timeout reads more slowly for good (see above).
   *
   * @throws java.net.SocketException if the socket is closed
   */
  public void readTimeout(Duration timeout) throws java.net.SocketException {
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    SSLSocket layered = tls;
    (layered != null ? layered : socket).setSoTimeout(millis);
  }

  /** The handshake succeeded: the watchdog stands down. */
  public void connected() {
    watchdog.cancel(false);
  }

  /** What to throw for {@code e}: a timeout if the watchdog closed the socket. */
  IOException timedOutOr(IOException e) {
    if (!watchdogFired) {
      return e;
    }
    SocketTimeoutException timedOut = new SocketTimeoutException("no answer from " + address);
    timedOut.initCause(e);
    return timedOut;
  }

  public InetSocketAddress address() {
    return address;
  }

  /** Writes one encoded frame ({@link Frames#encode}) in one call. */
  public void write(byte[] frame) throws IOException {
    out.write(frame);
  }

  /**
   * The next frame; blocks until it has arrived whole.
   *
   * @throws EOFException if the server closed the connection
   * @throws TlsMismatch if it closed before sending a byte, being a TLS server
   * @throws IOException if the connection failed or was closed (by {@link #close} from another
   *     thread, or by the watchdog: then a {@link SocketTimeoutException})
   */
  public ServerFrame read() throws IOException {
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
      int n;
      try {
        n = in.read(buffer, end, buffer.length - end);
      } catch (IOException e) {
        throw timedOutOr(e);
      }
      if (n < 0) {
        throw closed();
      }
      heard = true;
      end += n;
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
    watchdog.cancel(false);
    try {
      SSLSocket layered = tls;
      if (layered != null && !watchdogFired) {
        // close_notify first, so the server sees a clean end and not a truncated TLS stream
        layered.close();
      }
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
