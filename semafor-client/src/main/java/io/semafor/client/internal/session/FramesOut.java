package io.semafor.client.internal.session;

import io.semafor.client.internal.session.SessionEffect.Send;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Request;
import java.util.List;

/**
 * The frames a {@link ClientSession} sends: requests with the acknowledgements they carry, reads,
 * keep-alives (with acknowledgements, as probes, or {@code sync} for a confirmation). A part of the
 * machine, kept apart for its size: it works on the machine's state.
 */
final class FramesOut {
  private final ClientSession s;

  FramesOut(ClientSession session) {
    this.s = session;
  }

  void send(ClientFrame frame, long now) {
    s.liveness.sent(now);
    s.out.add(new Send(frame));
  }

  /**
   * Sends every request not on this connection yet, in id order: after a resume the unanswered ones
   * go again under their ids before anything new.
   */
  void flush(long now) {
    if (s.phase != Phase.READY || s.backpressure.holding()) {
      return;
    }
    for (Pending p : s.pending.values()) {
      if (!p.sent) {
        sendRequest(p, now);
      }
    }
  }

  void sendRequest(Pending p, long now) {
    List<Long> carried = s.acks.take(Acks.Carrier.request(p.wireId), false);
    Request.Builder request = p.request.toBuilder().setId(p.wireId).clearAcks();
    if (!carried.isEmpty()) {
      request.addAllAcks(carried);
    }
    p.sent = true;
    p.attempts++;
    send(ClientFrame.newBuilder().setRequest(request).build(), now);
  }

  void sendRead(long id, long now) {
    Pending.ReadCall r = s.reads.get(id);
    r.sent = true;
    send(ClientFrame.newBuilder().setRead(r.read).build(), now);
  }

  /**
   * A keep-alive with an id. With acks, its pong confirms them; without, it is answered at once and
   * serves as the probe of a silent server. Returns its id.
   */
  long sendKeepAlive(long now, boolean forceAcks, boolean withAcks) {
    long id = s.nextKeepAlive++;
    List<Long> carried = withAcks ? s.acks.take(Acks.Carrier.keepAlive(id), forceAcks) : List.of();
    if (carried.isEmpty()) {
      s.liveness.probing(id, now);
    }
    send(
        ClientFrame.newBuilder()
            .setKeepAlive(KeepAlive.newBuilder().setId(id).addAllAcks(carried))
            .build(),
        now);
    return id;
  }

  /** A keep-alive with {@code sync} and the acknowledgements due, for every token waiting. */
  void sendConfirm(long now) {
    long id = s.nextKeepAlive++;
    List<Long> carried = s.acks.take(Acks.Carrier.keepAlive(id), true);
    s.confirms.replaceAll((token, keepAlive) -> id);
    send(
        ClientFrame.newBuilder()
            .setKeepAlive(KeepAlive.newBuilder().setId(id).addAllAcks(carried).setSync(true))
            .build(),
        now);
  }

  void submitInternal(Request request, long now) {
    long id = s.nextId++;
    Pending p = new Pending(request, id, false, true);
    s.pending.put(id, p);
    if (s.phase == Phase.READY && !s.backpressure.holding()) {
      sendRequest(p, now);
    }
  }

  boolean outstanding() {
    for (Pending p : s.pending.values()) {
      if (p.sent) {
        return true;
      }
    }
    for (Pending.ReadCall r : s.reads.values()) {
      if (r.sent) {
        return true;
      }
    }
    return s.acks.awaitingPong();
  }

  /** The {@code Hello} that opens a session, or resumes the one attached with its secret. */
  void sendHello(long now) {
    SessionConfig c = s.config;
    Hello hello =
        Hello.newBuilder()
            .setProtocolVersion(Frames.PROTOCOL_VERSION)
            .setSessionId(s.sessionId)
            .setSessionTtlNs(c.sessionTtlNanos())
            .setClientName(c.clientName())
            .setClientHost(c.clientHost())
            .setClientPid(c.clientPid())
            .setToken(c.token())
            .setSessionSecret(s.secret)
            .build();
    s.helloSentAt = now;
    send(ClientFrame.newBuilder().setHello(hello).build(), now);
  }
}
