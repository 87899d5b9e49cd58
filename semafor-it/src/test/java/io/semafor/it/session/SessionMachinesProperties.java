package io.semafor.it.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.session.ClientSession;
import io.semafor.client.internal.session.SessionConfig;
import io.semafor.client.internal.session.SessionEffect;
import io.semafor.core.Name;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.jspecify.annotations.Nullable;

/**
 * The client's session machine ({@link ClientSession}) against the server's ({@link
 * io.semafor.server.session.ServerSession}) and the core, through a simulated link: frames wait in
 * flight until delivered (time passing meanwhile), and a cut loses what is in flight both ways, so
 * the client resends on a new connection what the server may or may not have applied (a duplicate
 * at the server). TCP neither drops nor duplicates a frame within a connection, so those faults are
 * these. Whatever happens, once the link heals every request is applied exactly once (the counter
 * ends at their sum) and answered exactly once, with the reply it was applied with.
 */
class SessionMachinesProperties {
  private static final long START = 5_000_000_000_000L;
  private static final Name COUNTER = Name.of("x");

  /** One thing that happens to the client, the link or the clock. */
  sealed interface Action {}

  record Submit(int amount) implements Action {}

  record ToServer(int frames) implements Action {}

  record ToClient(int frames) implements Action {}

  record Advance(long millis) implements Action {}

  record Cut() implements Action {}

  @Provide
  Arbitrary<List<Action>> histories() {
    Arbitrary<Action> action =
        Arbitraries.frequencyOf(
            Tuple.of(5, Arbitraries.integers().between(1, 3).map(Submit::new).map(a -> (Action) a)),
            Tuple.of(
                5, Arbitraries.integers().between(1, 6).map(ToServer::new).map(a -> (Action) a)),
            Tuple.of(
                5, Arbitraries.integers().between(1, 6).map(ToClient::new).map(a -> (Action) a)),
            Tuple.of(
                3, Arbitraries.longs().between(0, 1200).map(Advance::new).map(a -> (Action) a)),
            Tuple.of(1, Arbitraries.just((Action) new Cut())));
    return action.list().ofMaxSize(80);
  }

  @Property(tries = 300)
  void everyRequestIsAppliedOnceAndAnsweredOnceWithItsReply(
      @ForAll("histories") List<Action> history) {
    Simulation sim = new Simulation();
    for (Action a : history) {
      sim.run(a);
    }
    sim.heal();

    assertThat(sim.failed).isEmpty();
    assertThat(sim.answers.keySet()).containsExactlyInAnyOrderElementsOf(sim.submitted.keySet());
    assertThat(sim.answerCount.values()).allMatch(n -> n == 1);
    assertThat(sim.answers.values()).allMatch(Response::hasIncremented, "answered as applied");
    long total = sim.submitted.values().stream().mapToLong(Integer::longValue).sum();
    assertThat(sim.node.value(COUNTER)).isEqualTo(total);
    // each answer is the value its own increment left: all different, the last one the total
    assertThat(sim.answers.values().stream().map(r -> r.getIncremented().getValue()).distinct())
        .hasSameSizeAs(sim.answers.values());
    if (total > 0) {
      assertThat(
              sim.answers.values().stream()
                  .mapToLong(r -> r.getIncremented().getValue())
                  .max()
                  .orElse(0))
          .isEqualTo(total);
    }
  }

  /** The two machines and the link between them, on a fake clock. */
  private static final class Simulation {
    final MachineNode node = new MachineNode(new SecureRandom());
    final ClientSession client;
    long now = START;
    MachineNode.@Nullable Connection serverSide;
    long conn;
    final ArrayDeque<ClientFrame> toServer = new ArrayDeque<>();

    /** What the server side wrote that the client has not read: frames, then maybe the close. */
    int delivered;

    final Map<Long, Integer> submitted = new HashMap<>();
    final Map<Long, Response> answers = new HashMap<>();
    final Map<Long, Integer> answerCount = new HashMap<>();
    final List<SessionEffect.Failed> failed = new ArrayList<>();

    Simulation() {
      SessionConfig d = SessionConfig.defaults(List.of("a:1", "b:2", "c:3"));
      client =
          new ClientSession(
              new SessionConfig(
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
                  3_600 * SessionConfig.SECOND,
                  d.avoidSilentNanos(),
                  d.stableAfterNanos()));
      MachineNode.Connection setup = node.connect(now);
      setup.receive(
          ClientFrame.newBuilder()
              .setHello(io.semafor.protocol.v1.Hello.newBuilder().setProtocolVersion(1))
              .build(),
          now);
      setup.receive(
          ClientFrame.newBuilder()
              .setRequest(
                  Request.newBuilder()
                      .setId(1)
                      .setCreate(Create.newBuilder().setName(ByteString.copyFromUtf8("x"))))
              .build(),
          now);
      setup.disconnect();
    }

    void run(Action a) {
      if (a instanceof Submit s) {
        Request r =
            Request.newBuilder()
                .setIncrement(
                    Increment.newBuilder()
                        .setName(ByteString.copyFromUtf8("x"))
                        .setAmount(s.amount()))
                .build();
        long id = client.submit(r, now, false, OptionalLong.empty());
        submitted.put(id, s.amount());
      } else if (a instanceof ToServer t) {
        toServer(t.frames());
      } else if (a instanceof ToClient t) {
        toClient(t.frames());
      } else if (a instanceof Advance adv) {
        advance(adv.millis() * SessionConfig.MS);
      } else if (a instanceof Cut) {
        if (serverSide != null) {
          cut();
          client.disconnected(now, conn);
        }
      }
      effects();
    }

    private void toServer(int n) {
      for (int i = 0; i < n && !toServer.isEmpty() && serverSide != null; i++) {
        serverSide.receive(toServer.poll(), now);
      }
    }

    private boolean pendingToClient() {
      return serverSide != null && delivered < serverSide.written.size();
    }

    private void toClient(int n) {
      for (int i = 0; i < n && pendingToClient(); i++) {
        Object next = serverSide.written.get(delivered++);
        if (next == MachineNode.CLOSED) {
          serverSide = null;
          toServer.clear();
          client.disconnected(now, conn);
        } else {
          client.received((ServerFrame) next, now, conn);
        }
        effects();
      }
    }

    /** Moves the clock, ticking at every deadline on the way, as a driver does. */
    private void advance(long nanos) {
      long end = now + nanos;
      for (int i = 0; i < 100_000; i++) {
        OptionalLong due = client.nextDeadline();
        if (due.isEmpty() || due.getAsLong() > end) {
          break;
        }
        now = Math.max(now, due.getAsLong());
        client.tick(now);
        effects();
      }
      now = end;
      client.tick(now);
      if (serverSide != null) {
        serverSide.tick(now);
      }
      effects();
    }

    /** The connection breaks: what is in flight is lost both ways, and the server learns it. */
    private void cut() {
      MachineNode.Connection gone = serverSide;
      serverSide = null;
      toServer.clear();
      if (gone != null) {
        gone.disconnect();
      }
    }

    private void effects() {
      for (int round = 0; round < 1_000; round++) {
        long dial = 0;
        for (SessionEffect e : client.take()) {
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
        serverSide = node.connect(now);
        delivered = 0;
        client.connected(now, conn);
      }
      throw new AssertionError("the client kept dialling");
    }

    /** The link delivers everything from now on, until nothing is left to answer. */
    void heal() {
      for (int i = 0; i < 10_000; i++) {
        if (toServer.isEmpty()
            && !pendingToClient()
            && client.pendingIds().isEmpty()
            && submitted.size() == answers.size()) {
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
  }
}
