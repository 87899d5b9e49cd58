package io.semafor.server;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.semafor.ClientInfo;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.fuzz.MachineDriver;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Request;
import io.semafor.server.wire.WireRequests;
import io.semafor.server.wire.WireResults;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * Fuzzes the request path from the wire to the state machine, as {@link Connection} takes it: bytes
 * are split into frames by {@link FrameCodec.Decoder}; a {@code Hello} opens (or resumes) a
 * session, checked against the server's default TTL bounds; a {@code Request} or {@code Read} is
 * turned into an operation or query by {@link WireRequests} (a {@link WireRequests.Malformed} being
 * the documented refusal) and given to a real {@link io.semafor.core.SemaphoreMachine}; a {@code
 * KeepAlive} acknowledges and lets a second of log time pass, firing the timers then due; a {@code
 * Snapshot} writes the machine's snapshot and continues on the machine read back from it. Every
 * reply is turned into its wire form by {@link WireResults}.
 *
 * <p>Findings: any exception but the documented ones, a broken invariant of the machine ({@link
 * MachineDriver}), a snapshot that does not read back as the same state, or a hang.
 *
 * <p>Seeds: {@code RequestPathFuzzTestInputs/requests/}, streams of frames that open a session and
 * use every operation and query ({@code SeedWriter}).
 */
class RequestPathFuzzTest {
  private static final long MIN_TTL = Duration.ofMillis(100).toNanos();
  private static final long MAX_TTL = Duration.ofHours(1).toNanos();
  private static final long DEFAULT_TTL = Duration.ofSeconds(10).toNanos();

  /** Smaller limits than the defaults, so that the fuzzer reaches each of them. */
  static final Limits LIMITS = new Limits(64, 16, 8, 8, 64, 8, 16, 64, 4);

  @FuzzTest
  void requests(byte[] bytes) {
    MachineDriver driver = new MachineDriver(LIMITS, RequestPathFuzzTest::toWire);
    Set<Long> opened = new HashSet<>();
    long session = 0;
    for (ClientFrame frame : FrameBytes.decode(bytes, Math.max(1, bytes.length)).frames()) {
      driver.advance(Duration.ofMillis(1).toNanos());
      switch (frame.getBodyCase()) {
        case HELLO -> session = hello(driver, frame.getHello(), opened, session);
        case REQUEST -> request(driver, frame.getRequest(), session);
        case READ -> {
          Query query;
          try {
            query = WireRequests.query(frame.getRead(), FrameBytes.MAX_FRAME_BYTES);
          } catch (WireRequests.Malformed e) {
            continue;
          }
          Reply reply = driver.query(query);
          roundTrip(WireResults.readResponse(frame.getRead().getId(), reply, driver.now()));
        }
        case KEEP_ALIVE -> {
          if (session != 0 && frame.getKeepAlive().getAcksCount() > 0) {
            driver.apply(new Command.Acknowledge(session, frame.getKeepAlive().getAcksList()));
          }
          driver.advance(Duration.ofSeconds(1).toNanos());
        }
        case SNAPSHOT -> driver.checkSnapshotRoundTrip();
        // watches change nothing and only read the state (WatchHubProperties, WatchWireTest)
        case WATCH, UNWATCH, BODY_NOT_SET -> {}
      }
    }
    driver.checkSnapshotRoundTrip();
  }

  private static long hello(MachineDriver driver, Hello hello, Set<Long> opened, long session) {
    if (hello.getSessionId() != 0) {
      // a resume: the connection takes that session on if it is still open
      return opened.contains(hello.getSessionId())
              && driver.machine().sessions().stream()
                  .anyMatch(s -> s.sessionId() == hello.getSessionId())
          ? hello.getSessionId()
          : session;
    }
    long ttl = hello.getSessionTtlNs() == 0 ? DEFAULT_TTL : hello.getSessionTtlNs();
    if (ttl < MIN_TTL || ttl > MAX_TTL) {
      return session; // refused by the edge with INVALID_ARGUMENT before the machine
    }
    Reply reply =
        driver
            .apply(
                new Command.OpenSession(
                    ttl,
                    new ClientInfo(
                        hello.getClientName(), hello.getClientHost(), hello.getClientPid())))
            .reply();
    if (reply != null && reply.result() instanceof Result.SessionOpened o) {
      opened.add(o.sessionId());
      return o.sessionId();
    }
    return session;
  }

  private static void request(MachineDriver driver, Request request, long session) {
    if (session == 0) {
      return; // refused by the edge: a connection begins with Hello
    }
    Operation op;
    try {
      op = WireRequests.operation(request);
    } catch (WireRequests.Malformed e) {
      return;
    }
    driver.apply(new Command.Request(session, request.getId(), request.getAcksList(), op));
  }

  /** Checks that {@code message}'s bytes, as the edge writes them, read back as it. */
  private static void roundTrip(Message message) {
    try {
      if (!message.getParserForType().parseFrom(message.toByteArray()).equals(message)) {
        throw new AssertionError("a reply's wire form reads back otherwise: " + message);
      }
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("a reply's wire form does not parse: " + message, e);
    }
  }

  /** The wire form of a reply to a request, as the edge sends it. */
  private static void toWire(Reply reply) {
    if (reply.sessionId() != 0 && !(reply.result() instanceof Result.SessionOpened)) {
      roundTrip(WireResults.response(reply, 0));
    }
  }
}
