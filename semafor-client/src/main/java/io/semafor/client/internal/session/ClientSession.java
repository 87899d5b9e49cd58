package io.semafor.client.internal.session;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.client.internal.session.SessionEffect.Closed;
import io.semafor.client.internal.session.SessionEffect.Dial;
import io.semafor.client.internal.session.SessionEffect.Failed;
import io.semafor.client.internal.session.SessionEffect.Hangup;
import io.semafor.client.internal.session.SessionEffect.ReadFailed;
import io.semafor.client.internal.session.SessionEffect.SessionLost;
import io.semafor.client.internal.session.SessionEffect.WatchEnded;
import io.semafor.protocol.v1.Cancel;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.CloseSession;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Unwatch;
import io.semafor.protocol.v1.Watch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The client's session protocol (docs/protocol.md §2–3, §4b) as a pure state machine: frames and
 * the time go in; frames to send, completions and the next deadline come out.
 *
 * <p>In the shape of etcd's raft {@code RawNode} (inputs step it, a batch of outputs comes out) and
 * Aeron's {@code ClientConductor} ({@code doWork(now)}): no sockets, threads or clock reads inside.
 * Every input takes {@code now}, a monotonic time in nanoseconds ({@link System#nanoTime()} or a
 * fake clock). Inputs: {@link #start}, {@link #connected}, {@link #received}, {@link
 * #disconnected}, {@link #tick}, {@link #submit}, {@link #read}, {@link #cancel}, {@link #watch},
 * {@link #unwatch}, {@link #close}, {@link #confirmAcknowledgements}, {@link #nudge}, {@link
 * #leaveUnacknowledged}. Outputs: {@link #take()} returns the {@link SessionEffect}s the inputs
 * produced since the last call, in order; {@link #nextDeadline()} says when to call {@link #tick}
 * at the latest. A driver owns the sockets and the clock, runs the effects, and gives one input at
 * a time: the machine is not thread-safe, and no method blocks.
 *
 * <p>The Python client's {@code semafor._session.ClientSession} is the same machine: both play the
 * protocol traces of {@code conformance/traces/client} (docs/protocol.md §9) exactly.
 */
public final class ClientSession {
  final SessionConfig config;
  final Addresses addresses;
  List<SessionEffect> out = new ArrayList<>();
  Phase phase = Phase.IDLE;

  /** A connection is wanted (a session, reads or watches to serve). */
  boolean want;

  long conn;
  long redialAt;
  long helloSentAt;
  boolean unavailable;
  long unavailableSince;
  boolean givenUp;

  // the session
  long sessionId;
  ByteString secret = ByteString.EMPTY;
  long ttlNanos;
  long epoch;
  boolean closing;

  // requests by the caller's id, in id order; a wire id differs only after a refusal
  long nextId = 1;
  final TreeMap<Long, Pending> pending = new TreeMap<>();

  /** A new wire id → the caller's id. */
  final Map<Long, Long> wire = new HashMap<>();

  /** Answers whose delivery awaits confirmation, by wire id. */
  final TreeMap<Long, Pending.Confirming> confirming = new TreeMap<>();

  /** Failed by giving up: a late answer is still reported, so that a grant can go back. */
  final Map<Long, Request> abandoned = new HashMap<>();

  final Acks acks;
  final Backpressure backpressure = new Backpressure();

  // confirmAcknowledgements: tokens not confirmed yet → the keep-alive whose Pong confirms each
  long nextConfirm = 1;
  final TreeMap<Long, Long> confirms = new TreeMap<>();

  // keep-alives and silence
  long nextKeepAlive = 1;
  final Liveness liveness = new Liveness();

  // reads and watches
  long nextRead = 1;
  TreeMap<Long, Pending.ReadCall> reads = new TreeMap<>();
  long nextWatch = 1;
  final TreeMap<Long, WatchPosition> watches = new TreeMap<>();

  private final ServerFrames inbound = new ServerFrames(this);
  final FramesOut frames = new FramesOut(this);
  final SessionEndings endings = new SessionEndings(this);

  /** A machine for one client session over {@code config}'s addresses; nothing happens yet. */
  public ClientSession(SessionConfig config) {
    this.config = config;
    this.addresses =
        new Addresses(
            config.addresses(),
            config.backoffMinNanos(),
            config.backoffMaxNanos(),
            config.avoidSilentNanos(),
            config.stableAfterNanos());
    this.ttlNanos =
        config.sessionTtlNanos() != 0 ? config.sessionTtlNanos() : SessionConfig.DEFAULT_TTL_NANOS;
    this.acks = new Acks(config.ackDelayNanos());
  }

  // ------------------------------------------------------------------ inputs

  /** Connect and open a session now (else the first use does). */
  public void start(long now) {
    want = true;
    if (phase == Phase.IDLE) {
      dial(now);
    }
  }

  /**
   * Connection {@code conn} (the last {@link Dial}'s) is up: the {@code Hello} goes out. Ignored
   * for any other connection.
   */
  public void connected(long now, long conn) {
    if (phase != Phase.DIALING || conn != this.conn) {
      return;
    }
    phase = Phase.HELLO;
    liveness.heard(now);
    frames.sendHello(now);
  }

  /** Connection {@code conn} failed to open or broke. Ignored for a connection already given up. */
  public void disconnected(long now, long conn) {
    if (conn != this.conn) {
      return;
    }
    if (phase == Phase.DIALING || phase == Phase.HELLO || phase == Phase.READY) {
      lostConnection(now);
    }
  }

  /** A frame read from connection {@code conn}; ignored from any but the current one. */
  public void received(ServerFrame frame, long now, long conn) {
    if (conn != this.conn || (phase != Phase.HELLO && phase != Phase.READY)) {
      return;
    }
    liveness.heard(now);
    inbound.step(frame, now);
  }

  /** Time passed: keep-alives, acknowledgements, silence, redials and giving up. */
  public void tick(long now) {
    if (phase == Phase.BACKOFF && now - redialAt >= 0) {
      dial(now);
    }
    if (unavailable && phase != Phase.READY && !givenUp) {
      if (now - unavailableSince >= giveUpAfter()) {
        endings.giveUp();
      }
    }
    if (phase == Phase.HELLO
        && addresses.hasAlternative()
        && now - helloSentAt >= config.answerDeadlineNanos()) {
      addresses.wentSilent(now);
      hangup(now, "no Welcome within the answer deadline");
      return;
    }
    if (phase != Phase.READY) {
      return;
    }
    if (liveness.probeUnanswered(now, config.answerDeadlineNanos())) {
      addresses.wentSilent(now);
      hangup(now, "the server stopped answering");
      return;
    }
    if (acks.due() && now - acks.dueAt() >= 0) {
      frames.sendKeepAlive(now, false, true);
    }
    if (liveness.quietFor(now, config.probeAfterNanos()) && frames.outstanding()) {
      frames.sendKeepAlive(now, false, false);
    }
    if (liveness.keepAliveDue(now, ttlNanos)) {
      frames.sendKeepAlive(now, false, true);
    }
  }

  /**
   * Queues {@code request} (its op set; its id and acks are the machine's) and returns its id. Its
   * answer comes as {@link SessionEffect.Completed} (or {@link Failed}).
   *
   * @param confirmDelivery complete only once the server has applied the acknowledgement of the
   *     answer (a lease or a WaitMany report: a grant that outlives the session only once
   *     delivered)
   * @param sessionEpoch the {@link SessionEffect.Opened#epoch} of the session that owns what the
   *     request names (a release of owned permits), or empty: with it, the request is for that
   *     session alone; if it was lost meanwhile, it fails {@code SESSION_EXPIRED} unsent and never
   *     reaches a newer session of this client (whose permits it would take)
   */
  public long submit(
      Request request, long now, boolean confirmDelivery, OptionalLong sessionEpoch) {
    long id = nextId++;
    // kept as given; its id and acknowledgements are set as it goes out (one copy, not two)
    Request numbered = request;
    if (sessionEpoch.isPresent() && (sessionEpoch.getAsLong() != epoch || sessionId == 0)) {
      out.add(
          new Failed(
              id,
              numbered,
              SessionError.of(
                  ErrorCode.SESSION_EXPIRED,
                  "the session that owned this ended; what it owned went back with it; not sent",
                  true)));
      return id;
    }
    if (phase == Phase.CLOSED || closing || givenUp) {
      String why =
          phase == Phase.CLOSED || closing
              ? "the client is closed"
              : "no server answered for the give-up time; not sent";
      out.add(new Failed(id, numbered, SessionError.of(ErrorCode.UNAVAILABLE, why, true)));
      return id;
    }
    Pending p = new Pending(numbered, id, confirmDelivery, false);
    pending.put(id, p);
    want = true;
    if (phase == Phase.IDLE) {
      dial(now);
    } else if (phase == Phase.READY && !backpressure.holding()) {
      frames.sendRequest(p, now);
    }
    return id;
  }

  /** Queues a read (its query set) and returns its id; answered with a {@code ReadCompleted}. */
  public long read(Read read, long now) {
    long id = nextRead++;
    Read numbered = read.toBuilder().setId(id).build();
    if (phase == Phase.CLOSED || closing) {
      out.add(
          new ReadFailed(id, SessionError.of(ErrorCode.UNAVAILABLE, "the client is closed", true)));
      return id;
    }
    reads.put(id, new Pending.ReadCall(numbered));
    want = true;
    if (phase == Phase.IDLE) {
      dial(now);
    } else if (phase == Phase.READY) {
      frames.sendRead(id, now);
    }
    return id;
  }

  /**
   * Withdraws a waiting request (docs/protocol.md §5 {@code cancel}). True: the request was sent, a
   * {@code cancel} follows it, and it is still answered (a grant that came first must be given
   * back). False: it was never sent (dropped now) or is answered already.
   */
  public boolean cancel(long requestId, long now) {
    Pending p = pending.get(requestId);
    if (p == null || p.internal) {
      return false;
    }
    if (p.attempts == 0 || (!p.sent && backpressure.isRefused(p.wireId))) {
      pending.remove(requestId); // never applied: nothing to withdraw
      return false;
    }
    frames.submitInternal(
        Request.newBuilder().setCancel(Cancel.newBuilder().setRequestId(p.wireId)).build(), now);
    return true;
  }

  /**
   * Starts a watch ({@code spec}'s id is not used) and returns its id; its events come as {@link
   * SessionEffect.WatchEventReceived}; it resumes by itself after reconnects from the last revision
   * told (docs/protocol.md §4b).
   */
  public long watch(Watch spec, long now) {
    long id = nextWatch++;
    if (phase == Phase.CLOSED || closing) {
      out.add(
          new WatchEnded(id, SessionError.of(ErrorCode.UNAVAILABLE, "the client is closed", true)));
      return id;
    }
    WatchPosition position = new WatchPosition(spec);
    watches.put(id, position);
    want = true;
    if (phase == Phase.IDLE) {
      dial(now);
    } else if (phase == Phase.READY) {
      frames.send(ClientFrame.newBuilder().setWatch(position.start(id)).build(), now);
    }
    return id;
  }

  /** Ends a watch; no event of it comes after this. */
  public void unwatch(long watchId, long now) {
    if (watches.remove(watchId) != null && phase == Phase.READY) {
      frames.send(
          ClientFrame.newBuilder().setUnwatch(Unwatch.newBuilder().setId(watchId)).build(), now);
    }
  }

  /**
   * Asks the server to confirm that it applied every acknowledgement sent so far, and those due now
   * (docs/protocol.md §3, {@code sync}): a keep-alive with {@code sync} carries them at once.
   * Returns a token; {@link SessionEffect.AcknowledgementsConfirmed} comes with its {@code Pong}. A
   * connection lost first: a new one is sent after the resume. The session lost first: {@link
   * SessionLost} comes instead (the undelivered grants went back with it).
   */
  public long confirmAcknowledgements(long now) {
    long token = nextConfirm++;
    confirms.put(token, 0L);
    if (phase == Phase.READY) {
      frames.sendConfirm(now);
    }
    return token;
  }

  /**
   * Sends a keep-alive answered at once (no acknowledgements), so that a {@code Pong} comes soon: a
   * driver whose thread blocks reading the socket wakes it so.
   */
  public void nudge(long now) {
    if (phase == Phase.READY) {
      frames.sendKeepAlive(now, false, false);
    }
  }

  /**
   * The answer just reported with this {@code Response.id} is not to be acknowledged (its caller is
   * gone as the client closes: undelivered, what it granted goes back with the session). Call it
   * before any other input after the one that reported the answer.
   */
  public void leaveUnacknowledged(long responseId, long now) {
    acks.withdraw(responseId);
  }

  /**
   * Ends the session ({@code close_session}): everything it owns goes back at once. Pending
   * requests and reads fail {@code UNAVAILABLE}; {@link Closed} follows the answer, or comes at
   * once when no session is attached.
   */
  public void close(long now) {
    if (phase == Phase.CLOSED || closing) {
      return;
    }
    SessionError why = SessionError.of(ErrorCode.UNAVAILABLE, "the client was closed", false);
    endings.failEverything(why);
    for (long id : watches.keySet()) {
      out.add(new WatchEnded(id, why));
    }
    watches.clear();
    if (phase == Phase.READY && sessionId != 0) {
      closing = true;
      frames.submitInternal(
          Request.newBuilder().setCloseSession(CloseSession.getDefaultInstance()).build(), now);
    } else {
      endings.finishClose();
    }
  }

  /** The effects produced since the last call, in order. */
  public List<SessionEffect> take() {
    List<SessionEffect> taken = out;
    out = new ArrayList<>();
    return taken;
  }

  /** The latest time to call {@link #tick}; empty: nothing is due until the next input. */
  public OptionalLong nextDeadline() {
    DeadlineMin due = new DeadlineMin();
    if (acks.due()) {
      due.add(acks.dueAt());
    }
    if (phase == Phase.BACKOFF) {
      due.add(redialAt);
    }
    if (phase == Phase.HELLO && addresses.hasAlternative()) {
      due.add(helloSentAt + config.answerDeadlineNanos());
    }
    if (unavailable && phase != Phase.READY && !givenUp) {
      due.add(unavailableSince + giveUpAfter());
    }
    if (phase == Phase.READY) {
      liveness.addDeadlines(
          due,
          ttlNanos,
          config.answerDeadlineNanos(),
          config.probeAfterNanos(),
          frames.outstanding());
    }
    return due.result();
  }

  /**
   * Whether acknowledgements wait for a frame to carry them; {@link #acknowledgementsDueAt()} is
   * when a keep-alive must at the latest (a driver may watch this alone, cheaply, between ticks).
   */
  public boolean acknowledgementsDue() {
    return acks.due();
  }

  /** When a keep-alive must carry the waiting acknowledgements, if {@link #acknowledgementsDue}. */
  public long acknowledgementsDueAt() {
    return acks.dueAt();
  }

  /** The number of the connection the last {@link Dial} asked for. */
  public long conn() {
    return conn;
  }

  /** The address the last {@link Dial} asked for (the server of the current connection). */
  public String address() {
    return addresses.current();
  }

  /** Where the connection stands. */
  public Phase phase() {
    return phase;
  }

  /** The attached session's id; 0: none. */
  public long sessionId() {
    return sessionId;
  }

  /** The number of sessions this machine has opened: see {@link SessionEffect.Opened#epoch}. */
  public long epoch() {
    return epoch;
  }

  /** Ids of requests with no answer yet, in id order. */
  public List<Long> pendingIds() {
    return new ArrayList<>(pending.keySet());
  }

  // ------------------------------------------------------------------ connection

  private void dial(long now) {
    conn++;
    phase = Phase.DIALING;
    out.add(new Dial(conn, addresses.next(now)));
  }

  void hangup(long now, String reason) {
    out.add(new Hangup(conn, reason));
    lostConnection(now);
  }

  void lostConnection(long now) {
    boolean wasReady = phase == Phase.READY;
    pending.values().forEach(p -> p.sent = false);
    reads.values().forEach(r -> r.sent = false);
    liveness.reset();
    backpressure.release(); // settled at the resume
    if (closing) { // the session is left to its TTL
      endings.finishClose();
      return;
    }
    if (!unavailable) {
      unavailable = true;
      unavailableSince = now;
    }
    long at = addresses.failed(now, wasReady);
    if (!want) {
      phase = Phase.IDLE;
      return;
    }
    phase = Phase.BACKOFF;
    redialAt = at;
    if (redialAt - now <= 0) {
      dial(now);
    }
  }

  private long giveUpAfter() {
    return config.giveUpAfterNanos() != 0
        ? config.giveUpAfterNanos()
        : ttlNanos + 5 * SessionConfig.SECOND;
  }

  /** A connection is up and a session attached: the unavailable time and the give-up end. */
  void available() {
    unavailable = false;
    givenUp = false;
  }
}
