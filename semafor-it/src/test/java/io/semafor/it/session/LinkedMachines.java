package io.semafor.it.session;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.session.ClientSession;
import io.semafor.client.internal.session.SessionConfig;
import io.semafor.client.internal.session.SessionEffect;
import io.semafor.core.Name;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A client's session machine and a server's (with the core, {@link MachineNode}) joined by a
 * simulated link, on a fake clock: frames wait in flight until delivered, and a cut loses what is
 * in flight both ways (the server learns it; the client learns it too, or by its own silence
 * detection). What happens is written to an {@link ExchangeLog} if one is given. The counter {@code
 * x} exists before the client starts; every request of a test increments it. Not thread-safe.
 */
final class LinkedMachines {
  static final long START = 5_000_000_000_000L;
  static final Name COUNTER = Name.of("x");
  static final List<String> ADDRESSES = List.of("a:1", "b:2", "c:3");

  /** How long the client waits for a server before failing what is pending: never, here. */
  static final long GIVE_UP_AFTER = 3_600 * SessionConfig.SECOND;

  /** The seed of the server's resume secrets, so that an exchange can be replayed. */
  static final long SERVER_SEED = 42;

  final MachineNode node = preparedNode();
  final ClientSession client = new ClientSession(clientConfig(ADDRESSES, GIVE_UP_AFTER));
  private final @Nullable ExchangeLog log;
  long now = START;
  long conn;
  MachineNode.@Nullable Connection serverSide;
  final ArrayDeque<ClientFrame> toServer = new ArrayDeque<>();

  /** How many of the frames the server side wrote the client has read. */
  int delivered;

  /** Every server connection by the client's number for it, and how much of it the log saw. */
  private final Map<Long, MachineNode.Connection> connections = new LinkedHashMap<>();

  private final Map<Long, Integer> logged = new HashMap<>();

  final Map<Long, Integer> submitted = new HashMap<>();
  final Map<Long, Response> answers = new HashMap<>();
  final Map<Long, Integer> answerCount = new HashMap<>();
  final List<SessionEffect.Failed> failed = new ArrayList<>();

  LinkedMachines(@Nullable ExchangeLog log) {
    this.log = log;
  }

  /**
   * The node every exchange starts from: resume secrets drawn from {@link #SERVER_SEED}, and the
   * counter {@code x} created at {@link #START} on a connection of its own.
   */
  static MachineNode preparedNode() {
    MachineNode node = new MachineNode(seeded(SERVER_SEED));
    MachineNode.Connection setup = node.connect(START);
    setup.receive(
        ClientFrame.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(1)).build(), START);
    setup.receive(
        ClientFrame.newBuilder()
            .setRequest(
                Request.newBuilder()
                    .setId(1)
                    .setCreate(Create.newBuilder().setName(ByteString.copyFromUtf8("x"))))
            .build(),
        START);
    setup.disconnect();
    return node;
  }

  /**
   * The client's configuration: the server's session TTL, {@code addresses}, and pending calls
   * failed after {@code giveUpAfterNanos} without a server.
   */
  static SessionConfig clientConfig(List<String> addresses, long giveUpAfterNanos) {
    SessionConfig d = SessionConfig.defaults(addresses);
    return new SessionConfig(
        d.addresses(),
        0,
        "",
        "",
        0,
        "",
        d.ackDelayNanos(),
        d.probeAfterNanos(),
        d.answerDeadlineNanos(),
        d.backoffMinNanos(),
        d.backoffMaxNanos(),
        giveUpAfterNanos,
        d.avoidSilentNanos(),
        d.stableAfterNanos());
  }

  static SecureRandom seeded(long seed) {
    try {
      SecureRandom r = SecureRandom.getInstance("SHA1PRNG");
      r.setSeed(seed);
      return r;
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static Request increment(int amount) {
    return Request.newBuilder()
        .setIncrement(
            Increment.newBuilder().setName(ByteString.copyFromUtf8("x")).setAmount(amount))
        .build();
  }

  // ------------------------------------------------------------------ what a test does

  /** The client's caller submits an increment of {@code amount}. */
  void submit(int amount) {
    submitted.put(submit(increment(amount)), amount);
  }

  /** The client's caller submits {@code r}; its id. */
  long submit(Request r) {
    if (log != null) {
      log.client(now, "submit").put("request", ExchangeLog.text(r));
    }
    long id = client.submit(r, now, false, OptionalLong.empty());
    effects();
    return id;
  }

  /** The link carries up to {@code n} frames from the client to the server. */
  void toServer(int n) {
    for (int i = 0; i < n && !toServer.isEmpty() && serverSide != null; i++) {
      ClientFrame frame = toServer.poll();
      if (log != null) {
        log.server(now, "received").put("conn", conn).put("frame", ExchangeLog.text(frame));
      }
      serverSide.receive(frame, now);
      serverWrote();
    }
    effects();
  }

  boolean pendingToClient() {
    return serverSide != null && delivered < serverSide.written.size();
  }

  /** The link carries up to {@code n} frames (or the close) from the server to the client. */
  void toClient(int n) {
    for (int i = 0; i < n && pendingToClient(); i++) {
      Object next = serverSide.written.get(delivered++);
      if (next == MachineNode.CLOSED) {
        serverSide = null;
        toServer.clear();
        if (log != null) {
          log.client(now, "disconnected").put("conn", conn);
        }
        client.disconnected(now, conn);
      } else {
        if (log != null) {
          log.client(now, "received")
              .put("conn", conn)
              .put("frame", ExchangeLog.text((ServerFrame) next));
        }
        client.received((ServerFrame) next, now, conn);
      }
      effects();
    }
  }

  /** Moves the clock, ticking the client at every deadline on the way, as a driver does. */
  void advance(long nanos) {
    long end = now + nanos;
    for (int i = 0; i < 100_000; i++) {
      OptionalLong due = client.nextDeadline();
      if (due.isEmpty() || due.getAsLong() > end) {
        break;
      }
      now = Math.max(now, due.getAsLong());
      tickClient();
    }
    now = end;
    tickClient();
    if (serverSide != null && serverSide.session.nextDeadline() <= now) {
      if (log != null) {
        log.server(now, "tick").put("conn", conn);
      }
      serverSide.tick(now);
      serverWrote();
    }
    effects();
  }

  private void tickClient() {
    if (log != null) {
      log.client(now, "tick");
    }
    client.tick(now);
    effects();
  }

  /** The connection breaks: what is in flight is lost both ways, and both sides learn it. */
  void cutAndTell() {
    if (serverSide != null) {
      cut();
      if (log != null) {
        log.client(now, "disconnected").put("conn", conn);
      }
      client.disconnected(now, conn);
      effects();
    }
  }

  /** The link delivers everything from now on, until nothing is left to answer. */
  void heal() {
    for (int i = 0; i < 10_000; i++) {
      if (toServer.isEmpty()
          && !pendingToClient()
          && client.pendingIds().isEmpty()
          && answers.keySet().containsAll(submitted.keySet())) {
        return;
      }
      toServer(Integer.MAX_VALUE);
      toClient(Integer.MAX_VALUE);
      if (toServer.isEmpty() && !pendingToClient()) {
        advance(SessionConfig.MS);
      }
    }
    throw new AssertionError(
        "still unanswered after healing: " + client.pendingIds() + " in " + client.phase());
  }

  // ------------------------------------------------------------------ the link

  private void cut() {
    MachineNode.Connection gone = serverSide;
    serverSide = null;
    toServer.clear();
    if (gone != null && !gone.closed) {
      if (log != null) {
        log.server(now, "disconnected").put("conn", conn);
      }
      gone.disconnect();
      serverWrote();
    }
  }

  /** Logs what each server connection wrote since the log last looked. */
  private void serverWrote() {
    if (log == null) {
      return;
    }
    for (Map.Entry<Long, MachineNode.Connection> e : connections.entrySet()) {
      List<Object> written = e.getValue().written;
      int from = logged.getOrDefault(e.getKey(), 0);
      for (int i = from; i < written.size(); i++) {
        Object w = written.get(i);
        log.serverWrote(e.getKey(), w == MachineNode.CLOSED ? null : (ServerFrame) w);
      }
      logged.put(e.getKey(), written.size());
    }
  }

  private void effects() {
    for (int round = 0; round < 1_000; round++) {
      long dial = 0;
      List<SessionEffect> taken = client.take();
      if (log != null) {
        // all of them first: carrying them out may give the server an input (a hangup)
        taken.forEach(log::clientDid);
      }
      for (SessionEffect e : taken) {
        if (e instanceof SessionEffect.Dial d) {
          dial = d.conn();
        } else if (e instanceof SessionEffect.Send s) {
          if (serverSide != null) {
            toServer.add(s.frame());
          }
        } else if (e instanceof SessionEffect.Hangup) {
          cut();
        } else if (e instanceof SessionEffect.Completed c) {
          answers.put(c.requestId(), c.response());
          answerCount.merge(c.requestId(), 1, Integer::sum);
        } else if (e instanceof SessionEffect.Failed f) {
          failed.add(f);
        }
      }
      if (dial == 0) {
        return;
      }
      cut(); // a new connection: nothing of the old one arrives
      conn = dial;
      if (log != null) {
        log.server(now, "connected").put("conn", conn);
      }
      serverSide = node.connect(now);
      connections.put(conn, serverSide);
      delivered = 0;
      if (log != null) {
        log.client(now, "connected").put("conn", conn);
      }
      client.connected(now, conn);
    }
    throw new AssertionError("the client kept dialling");
  }
}
