package io.semafor.client;

import com.google.protobuf.InvalidProtocolBufferException;
import io.semafor.ErrorCode;
import io.semafor.client.internal.ErrorCodes;
import io.semafor.client.internal.TlsSockets;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.SnapshotChunk;
import io.semafor.protocol.v1.SnapshotRequest;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Downloads a consistent snapshot of a server's whole state (what {@code semafor snapshot save}
 * writes to a file): asks with a {@code SnapshotRequest}, which needs no session, and copies the
 * {@code SnapshotChunk}s it is answered with, in order, to a stream. In a cluster it follows the
 * {@code NOT_LEADER} answers to the leader, which takes the snapshot at a position in its log.
 *
 * <p>Blocking; uses a connection of its own; stateless and thread-safe.
 */
public final class SnapshotDownload {
  /** Redirects followed at most before giving up: a cluster electing meanwhile settles sooner. */
  private static final int MAX_HOPS = 16;

  private SnapshotDownload() {}

  /** The TTL of the session a download with a token opens to authenticate. */
  static final Duration SESSION_TTL = Duration.ofSeconds(1);

  /**
   * Where the snapshot came from and how long it is.
   *
   * @param server the {@code host:port} that sent it
   * @param bytes how many bytes were written to the stream
   */
  public record Result(String server, long bytes) {}

  /**
   * Downloads a snapshot into {@code out}. Blocks until the last chunk is written, the server
   * fails, or {@code timeout} passes with nothing read. Tries each address in turn until one
   * answers; once bytes have been written to {@code out} a failure is final (the caller discards
   * what was written).
   *
   * @param addresses {@code host:port}, several separated by commas
   * @throws IllegalArgumentException if an address is malformed
   * @throws SemaforException UNAVAILABLE if no server could be reached or none leads; another code
   *     if the server refused
   * @throws IOException if the connection broke during the download, or {@code out} failed
   */
  public static Result save(String addresses, OutputStream out, Duration timeout)
      throws IOException {
    return save(addresses, out, timeout, null, "");
  }

  /**
   * Like {@link #save(String, OutputStream, Duration)}, over TLS with {@code tls} if it is not
   * null, and authenticating with {@code token} (if not empty) to a server that checks permissions
   * (the principal needs {@code cluster}). With a token, the connection says Hello first, which
   * opens a session of {@link #SESSION_TTL} that ends by itself.
   *
   * @throws IOException also if the TLS handshake fails (a refused certificate)
   * @throws SemaforException UNAUTHENTICATED or PERMISSION_DENIED if the server refused the token
   */
  public static Result save(
      String addresses, OutputStream out, Duration timeout, @Nullable TlsConfig tls, String token)
      throws IOException {
    List<InetSocketAddress> given = SemaforClient.builder().addresses(addresses).addressList();
    if (given.isEmpty()) {
      throw new IllegalArgumentException("addresses: none given");
    }
    Deque<InetSocketAddress> next = new ArrayDeque<>(given);
    String lastProblem = "no address tried";
    for (int hop = 0; hop < MAX_HOPS + given.size() && !next.isEmpty(); hop++) {
      InetSocketAddress target = next.poll();
      String where = target.getHostString() + ":" + target.getPort();
      Attempt attempt = new Attempt(where, out);
      try (Socket plain = new Socket()) {
        plain.connect(
            new InetSocketAddress(target.getHostString(), target.getPort()),
            (int) Math.min(Integer.MAX_VALUE, Math.max(1, Math.min(timeout.toMillis(), 5_000))));
        plain.setTcpNoDelay(true);
        plain.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis())));
        @SuppressWarnings("resource") // closing plain closes the TLS layer's socket
        Socket socket =
            tls == null
                ? plain
                : TlsSockets.layer(
                    tls.sslContext(),
                    tls.hostnameVerification(),
                    plain,
                    target.getHostString(),
                    target.getPort());
        OutputStream request = new BufferedOutputStream(socket.getOutputStream());
        if (!token.isEmpty()) {
          Frames.write(
              request,
              ClientFrame.newBuilder()
                  .setHello(
                      Hello.newBuilder()
                          .setProtocolVersion(Frames.PROTOCOL_VERSION)
                          .setSessionTtlNs(SESSION_TTL.toNanos())
                          .setClientName("semafor-snapshot")
                          .setToken(token))
                  .build());
        }
        Frames.write(
            request,
            ClientFrame.newBuilder().setSnapshot(SnapshotRequest.newBuilder().setId(1)).build());
        request.flush();
        String leader =
            attempt.receive(new DataInputStream(new BufferedInputStream(socket.getInputStream())));
        if (leader == null) {
          return new Result(where, attempt.written);
        }
        lastProblem = where + " does not lead";
        if (!leader.isEmpty()) {
          next.addFirst(InetSocketAddress.createUnresolved(hostOf(leader), portOf(leader)));
        } else {
          pauseForElection(next, target);
        }
      } catch (IOException e) {
        if (attempt.written > 0) {
          throw new IOException(
              "the connection to " + where + " broke after " + attempt.written + " bytes: " + e, e);
        }
        lastProblem = where + ": " + e.getMessage();
      }
    }
    throw new SemaforException(
        ErrorCode.UNAVAILABLE, "no server could send a snapshot (" + lastProblem + ")");
  }

  /** No leader known yet: try the others, and this one again, after a moment. */
  private static void pauseForElection(Deque<InetSocketAddress> next, InetSocketAddress target) {
    next.addLast(target);
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SemaforException(ErrorCode.UNAVAILABLE, "interrupted", e);
    }
  }

  private static String hostOf(String hostPort) {
    return hostPort.substring(0, hostPort.lastIndexOf(':'));
  }

  private static int portOf(String hostPort) {
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  /** One connection's exchange. */
  private static final class Attempt {
    private final String where;
    private final OutputStream out;
    long written;

    Attempt(String where, OutputStream out) {
      this.where = where;
      this.out = out;
    }

    /**
     * Reads chunks until the last; returns null when done, or the leader's address ("" if not
     * known) when this server does not lead.
     */
    @org.jspecify.annotations.Nullable
    String receive(DataInputStream in) throws IOException {
      while (true) {
        ServerFrame frame;
        try {
          frame = ServerFrame.parseFrom(Frames.read(in, Frames.DEFAULT_MAX_FRAME_BYTES));
        } catch (InvalidProtocolBufferException e) {
          throw new IOException(where + " sent a frame that does not parse", e);
        }
        if (frame.hasFatal()) {
          Failure failure = frame.getFatal().getFailure();
          if (failure.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER && written == 0) {
            return failure.getLeader();
          }
          throw ErrorCodes.exception(failure);
        }
        if (frame.hasWelcome()
            && frame.getWelcome().hasFailure()
            && frame.getWelcome().getFailure().getCode()
                != io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
          throw ErrorCodes.exception(frame.getWelcome().getFailure());
        }
        if (!frame.hasSnapshotChunk()) {
          continue;
        }
        SnapshotChunk chunk = frame.getSnapshotChunk();
        if (chunk.hasFailure()) {
          throw ErrorCodes.exception(chunk.getFailure());
        }
        if (chunk.getOffset() != written) {
          throw new IOException(
              where + " sent bytes at " + chunk.getOffset() + ", expected " + written);
        }
        chunk.getData().writeTo(out);
        written += chunk.getData().size();
        if (chunk.getLast()) {
          if (written != chunk.getTotalBytes()) {
            throw new IOException(
                where + " ended after " + written + " of " + chunk.getTotalBytes() + " bytes");
          }
          out.flush();
          return null;
        }
      }
    }
  }
}
