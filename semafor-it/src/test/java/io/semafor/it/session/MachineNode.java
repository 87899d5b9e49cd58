package io.semafor.it.session;

import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.security.Access;
import io.semafor.server.session.Moment;
import io.semafor.server.session.NodeView;
import io.semafor.server.session.Peer;
import io.semafor.server.session.ServerEffect;
import io.semafor.server.session.ServerSession;
import io.semafor.server.session.SessionRules;
import io.semafor.server.wire.WireResults;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A single node made of the real parts, run by hand: the core's {@link SemaphoreMachine} applies
 * every command the moment it is proposed, and each connection's {@link ServerSession} is stepped
 * and its effects carried out here, as the server's driver would, without a thread or a socket.
 * Replies go to the connection their session is attached to when they are applied. Not thread-safe;
 * time is what the test says.
 */
final class MachineNode implements NodeView {
  static final Instant EPOCH = Instant.parse("2026-11-29T00:00:00Z");
  static final SessionRules RULES =
      new SessionRules(
          Duration.ofSeconds(10),
          Duration.ofSeconds(60),
          Duration.ofSeconds(30),
          Duration.ofSeconds(1),
          Duration.ofHours(2),
          1_024,
          1 << 20);

  private final SemaphoreMachine machine = new SemaphoreMachine();
  private final Map<Long, LiveSession> sessions = new HashMap<>();
  private final Map<Long, Connection> attached = new HashMap<>();
  private final SecureRandom random;
  private long revision;
  private long now;

  /** A node whose resume secrets come from {@code random}. */
  MachineNode(SecureRandom random) {
    this.random = random;
  }

  /** One connection's server side: its machine and the frames it wrote, in order. */
  final class Connection {
    final ServerSession session;
    final List<Object> written = new ArrayList<>();
    boolean closed;

    Connection(long nanos) {
      session =
          new ServerSession(RULES, MachineNode.this, random, new Peer("sim", "sim"), moment(nanos));
    }

    /** The client sent {@code frame}. */
    void receive(io.semafor.protocol.v1.ClientFrame frame, long nanos) {
      now = Math.max(now, nanos);
      run(this, session.received(frame, moment(nanos)));
    }

    /** The connection broke. */
    void disconnect() {
      if (!closed) {
        closed = true;
        run(this, session.disconnected());
      }
    }

    void tick(long nanos) {
      if (session.nextDeadline() <= nanos) {
        run(this, session.tick(moment(nanos)));
      }
    }
  }

  /** The end of the frames a connection wrote: it closed. */
  static final Object CLOSED = new Object();

  Connection connect(long nanos) {
    now = Math.max(now, nanos);
    return new Connection(nanos);
  }

  /** The counter every request of the test increments, as the machine holds it. */
  long value(io.semafor.core.Name name) {
    Result r = machine.query(new io.semafor.core.Query.Get(name)).result();
    return r instanceof Result.SemaphoreStatus s ? s.value() : 0;
  }

  private void run(Connection c, List<ServerEffect> effects) {
    for (ServerEffect e : effects) {
      if (e instanceof ServerEffect.Send send) {
        write(c, send.frame());
      } else if (e instanceof ServerEffect.SendAndClose last) {
        write(c, last.frame());
        c.written.add(CLOSED);
        c.disconnect();
      } else if (e instanceof ServerEffect.Attach a) {
        Connection before = attached.put(a.sessionId(), c);
        if (before != null && before != c) {
          run(before, before.session.superseded());
        }
      } else if (e instanceof ServerEffect.Detach d) {
        attached.remove(d.sessionId(), c);
      } else if (e instanceof ServerEffect.OpenSession open) {
        Outcome o = apply(open.command());
        Reply reply = o.reply();
        if (reply != null && reply.result() instanceof Result.SessionOpened opened) {
          run(c, c.session.opened(opened.sessionId()));
        } else if (reply != null && reply.result() instanceof Result.Failure f) {
          run(c, c.session.openFailed(f.code(), f.message()));
        }
      } else if (e instanceof ServerEffect.SubmitRequest submit) {
        Outcome o = apply(submit.command());
        if (o.reply() != null) {
          route(o.reply(), c);
        }
      } else if (e instanceof ServerEffect.Acknowledge ack) {
        apply(ack.command());
        run(c, c.session.acknowledged(ack.then()));
      } else if (!(e instanceof ServerEffect.Heard
          || e instanceof ServerEffect.AutoRead
          || e instanceof ServerEffect.Audit)) {
        throw new AssertionError("not expected in this test: " + e);
      }
    }
  }

  private Outcome apply(Command command) {
    Outcome o = machine.apply(++revision, now, command);
    for (Effect effect : o.effects()) {
      if (effect instanceof Effect.SessionStarted s) {
        sessions.put(s.sessionId(), new LiveSession(s.sessionId(), s.ttl(), s.owner()));
      } else if (effect instanceof Effect.SessionEnded s) {
        sessions.remove(s.sessionId());
      } else if (effect instanceof Effect.Complete done) {
        route(done.reply(), null);
      }
    }
    return o;
  }

  /** Sends a reply where its session is attached now, else back to the connection that asked. */
  private void route(Reply reply, @Nullable Connection asker) {
    Connection to = attached.get(reply.sessionId());
    if (to == null) {
      to = asker;
    }
    if (to != null) {
      write(to, ServerFrame.newBuilder().setResponse(WireResults.response(reply, now)).build());
    }
  }

  private static void write(Connection c, ServerFrame frame) {
    if (!c.closed) {
      c.written.add(frame);
    }
  }

  static Moment moment(long nanos) {
    return new Moment(nanos, EPOCH.plusNanos(nanos));
  }

  @Override
  public Access access() {
    return Access.OPEN;
  }

  @Override
  public boolean leads() {
    return true;
  }

  @Override
  public String leaderHint() {
    return "";
  }

  @Override
  public long lastRevision() {
    return revision;
  }

  @Override
  public @Nullable LiveSession session(long id) {
    return sessions.get(id);
  }

  @Override
  public @Nullable String takeSessionQuota(String owner) {
    return null;
  }

  @Override
  public void giveBackSessionQuota(String owner) {}

  @Override
  public boolean countSession(long id, String owner) {
    return sessions.containsKey(id);
  }

  @Override
  public @Nullable String admitPrincipal(String name) {
    return null;
  }

  @Override
  public void releasePrincipal(String name) {}
}
