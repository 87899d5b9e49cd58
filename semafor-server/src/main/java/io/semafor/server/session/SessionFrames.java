package io.semafor.server.session;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.Fatal;
import io.semafor.protocol.v1.Pong;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.SnapshotChunk;
import io.semafor.protocol.v1.Welcome;
import io.semafor.server.wire.WireResults;
import org.jspecify.annotations.Nullable;

/** The frames a {@link ServerSession} writes itself, built in one place. Stateless. */
final class SessionFrames {
  private SessionFrames() {}

  /** A pong without an id: the next owed, in order. */
  static final ServerFrame PONG =
      ServerFrame.newBuilder().setPong(Pong.getDefaultInstance()).build();

  static ServerFrame pong(long id) {
    return ServerFrame.newBuilder().setPong(Pong.newBuilder().setId(id)).build();
  }

  static ServerFrame welcome(
      long sessionId,
      long ttlNanos,
      boolean resumed,
      long revision,
      byte @Nullable [] secret,
      @Nullable String principal) {
    Welcome.Builder w =
        Welcome.newBuilder()
            .setProtocolVersion(Frames.PROTOCOL_VERSION)
            .setSessionId(sessionId)
            .setSessionTtlNs(ttlNanos)
            .setResumed(resumed)
            .setRevision(revision)
            .setServer("semafor");
    if (secret != null) {
      w.setSessionSecret(ByteString.copyFrom(secret));
    }
    if (principal != null) {
      w.setPrincipal(principal);
    }
    return ServerFrame.newBuilder().setWelcome(w).build();
  }

  /** The {@code Welcome} of a connection that opens no session (it reads or watches). */
  static ServerFrame welcomeWithoutSession(long revision, String principal) {
    return ServerFrame.newBuilder()
        .setWelcome(
            Welcome.newBuilder()
                .setProtocolVersion(Frames.PROTOCOL_VERSION)
                .setRevision(revision)
                .setServer("semafor")
                .setPrincipal(principal))
        .build();
  }

  static ServerFrame welcomeFailure(ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setWelcome(
            Welcome.newBuilder()
                .setProtocolVersion(Frames.PROTOCOL_VERSION)
                .setFailure(WireResults.failure(code, message)))
        .build();
  }

  static ServerFrame welcomeNotLeader(String leaderHint) {
    return ServerFrame.newBuilder()
        .setWelcome(
            Welcome.newBuilder()
                .setProtocolVersion(Frames.PROTOCOL_VERSION)
                .setFailure(WireResults.notLeader(leaderHint)))
        .build();
  }

  static ServerFrame fatal(ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setFatal(Fatal.newBuilder().setFailure(WireResults.failure(code, message)))
        .build();
  }

  static ServerFrame fatalNotLeader(String leaderHint) {
    return ServerFrame.newBuilder()
        .setFatal(Fatal.newBuilder().setFailure(WireResults.notLeader(leaderHint)))
        .build();
  }

  static ServerFrame responseFailure(long requestId, ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setResponse(
            Response.newBuilder().setId(requestId).setFailure(WireResults.failure(code, message)))
        .build();
  }

  static ServerFrame readFailure(long readId, ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setReadResponse(
            ReadResponse.newBuilder().setId(readId).setFailure(WireResults.failure(code, message)))
        .build();
  }

  static ServerFrame watchFailed(long watchId, ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setWatchEvent(WireResults.watchFailed(watchId, code, message))
        .build();
  }

  static ServerFrame snapshotFailure(long snapshotId, ErrorCode code, String message) {
    return ServerFrame.newBuilder()
        .setSnapshotChunk(
            SnapshotChunk.newBuilder()
                .setId(snapshotId)
                .setLast(true)
                .setFailure(WireResults.failure(code, message)))
        .build();
  }
}
