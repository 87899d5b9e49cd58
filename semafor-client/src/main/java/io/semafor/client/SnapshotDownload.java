package io.semafor.client;

import io.semafor.ErrorCode;
import io.semafor.client.internal.ErrorCodes;
import io.semafor.client.internal.Hellos;
import io.semafor.client.internal.Wire;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.SnapshotChunk;
import io.semafor.protocol.v1.SnapshotRequest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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

  /** The longest connecting and the TLS handshake may take, whatever the download's timeout. */
  private static final Duration CONNECT_AT_MOST = Duration.ofSeconds(5);

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
      Duration connecting = timeout.compareTo(CONNECT_AT_MOST) < 0 ? timeout : CONNECT_AT_MOST;
      try (Wire wire =
          Wire.connect(
              target,
              connecting,
              tls == null ? null : tls.sslContext(),
              tls != null && tls.hostnameVerification())) {
        wire.connected();
        wire.readTimeout(timeout);
        if (!token.isEmpty()) {
          wire.write(Frames.encode(Hellos.shortSession(token, SESSION_TTL, "semafor-snapshot")));
        }
        wire.write(
            Frames.encode(
                ClientFrame.newBuilder()
                    .setSnapshot(SnapshotRequest.newBuilder().setId(1))
                    .build()));
        String leader = attempt.receive(wire);
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
    String receive(Wire wire) throws IOException {
      while (true) {
        ServerFrame frame = wire.read();
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
