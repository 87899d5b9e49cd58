package io.semafor.client.internal.session;

import com.google.protobuf.ByteString;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Incremented;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Pong;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server side of docs/protocol.md §2–3 reduced to what a session's requests need, for driving a
 * {@link ClientSession} against: sessions opened and resumed with their secret, requests applied
 * once in id order, replies kept until acknowledged and sent again for a retried id, an id not
 * after the last applied and with no reply kept refused ({@code INVALID_ARGUMENT}), at most {@code
 * maxUnacked} replies unacknowledged (then {@code RESOURCE_EXHAUSTED}, not applied), a {@code Pong}
 * for every keep-alive. Every request is an increment of one counter. It counts how often each
 * request was applied, so that a test can say each was applied once. Not thread-safe; no time.
 */
final class SimulatedServer {
  private final int maxUnacked;
  private final Map<Long, Session> sessions = new HashMap<>();
  private long nextSession = 1;
  private long counter;
  private long revision;

  /** How often each request of each session was applied: (session, id) → count. */
  final Map<List<Long>, Integer> applications = new HashMap<>();

  /** Requests sent again after their reply was acknowledged: a client's protocol error. */
  final List<Request> retriedAfterAcknowledged = new ArrayList<>();

  private static final class Session {
    final long id;
    final ByteString secret;
    long highestApplied;
    final TreeMap<Long, Response> kept = new TreeMap<>();
    final java.util.Set<Long> acknowledged = new java.util.HashSet<>();

    Session(long id) {
      this.id = id;
      this.secret = ByteString.copyFromUtf8("secret-of-" + id);
    }
  }

  /** One connection's server side: the session it attached. */
  final class Connection {
    private Session session;

    /** The frames the server answers {@code frame} with, in order. */
    List<ServerFrame> receive(ClientFrame frame) {
      List<ServerFrame> out = new ArrayList<>();
      switch (frame.getBodyCase()) {
        case HELLO -> {
          long asked = frame.getHello().getSessionId();
          Session s = sessions.get(asked);
          boolean resumed = s != null && s.secret.equals(frame.getHello().getSessionSecret());
          if (asked != 0 && !resumed) {
            out.add(welcomeFailure(ErrorCode.SESSION_EXPIRED, "no session " + asked));
            return out;
          }
          if (!resumed) {
            s = new Session(nextSession++);
            sessions.put(s.id, s);
          }
          session = s;
          out.add(
              ServerFrame.newBuilder()
                  .setWelcome(
                      Welcome.newBuilder()
                          .setProtocolVersion(1)
                          .setSessionId(s.id)
                          .setSessionTtlNs(frame.getHello().getSessionTtlNs())
                          .setResumed(resumed)
                          .setSessionSecret(s.secret))
                  .build());
        }
        case REQUEST ->
            out.add(ServerFrame.newBuilder().setResponse(request(frame.getRequest())).build());
        case KEEP_ALIVE -> {
          KeepAlive k = frame.getKeepAlive();
          acknowledge(k.getAcksList());
          out.add(ServerFrame.newBuilder().setPong(Pong.newBuilder().setId(k.getId())).build());
        }
        default -> throw new AssertionError("not simulated: " + frame.getBodyCase());
      }
      return out;
    }

    private void acknowledge(List<Long> acks) {
      for (long id : acks) {
        if (session.kept.remove(id) != null) {
          session.acknowledged.add(id);
        }
      }
    }

    private Response request(Request r) {
      acknowledge(r.getAcksList());
      long id = r.getId();
      if (id <= session.highestApplied) {
        Response kept = session.kept.get(id);
        if (kept != null) {
          return kept; // a retry of an applied request: the same reply
        }
        if (session.acknowledged.contains(id)) {
          retriedAfterAcknowledged.add(r);
        }
        return failure(
            id,
            ErrorCode.INVALID_ARGUMENT,
            "requestId: "
                + id
                + " is not after "
                + session.highestApplied
                + " and has no reply kept");
      }
      if (session.kept.size() >= maxUnacked) {
        return failure(
            id,
            ErrorCode.RESOURCE_EXHAUSTED,
            "maxUnackedReplies (" + maxUnacked + ") reached: acknowledge replies");
      }
      counter += r.getIncrement().getAmount();
      revision++;
      applications.merge(List.of(session.id, id), 1, Integer::sum);
      session.highestApplied = id;
      Response reply =
          Response.newBuilder()
              .setId(id)
              .setRevision(revision)
              .setIncremented(Incremented.newBuilder().setValue(counter))
              .build();
      session.kept.put(id, reply);
      return reply;
    }

    private Response failure(long id, ErrorCode code, String message) {
      return Response.newBuilder()
          .setId(id)
          .setFailure(Failure.newBuilder().setCode(code).setMessage(message))
          .build();
    }

    private ServerFrame welcomeFailure(ErrorCode code, String message) {
      return ServerFrame.newBuilder()
          .setWelcome(
              Welcome.newBuilder()
                  .setFailure(Failure.newBuilder().setCode(code).setMessage(message)))
          .build();
    }
  }

  SimulatedServer(int maxUnacked) {
    this.maxUnacked = maxUnacked;
  }

  Connection connect() {
    return new Connection();
  }

  /** The reply the server applied request {@code id} of {@code session} with, if still kept. */
  long counter() {
    return counter;
  }
}
