package io.semafor.client.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.session.SessionEffect.Completed;
import io.semafor.client.internal.session.SessionEffect.Dial;
import io.semafor.client.internal.session.SessionEffect.Failed;
import io.semafor.client.internal.session.SessionEffect.Hangup;
import io.semafor.client.internal.session.SessionEffect.Send;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
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
 * The session machine against a simulated server ({@link SimulatedServer}) through a link that
 * delays frames (they wait until delivered, time passing meanwhile) and cuts the connection (the
 * frames in flight lost both ways): whatever happens, once the link heals every request is applied
 * exactly once, answered exactly once with the reply it was applied with (never with a refusal),
 * and none is sent again after its reply was acknowledged. With a small limit of unacknowledged
 * replies, so that refusals for it and their resends are exercised too.
 */
class ClientSessionProperties {
  private static final long START = 5_000_000_000_000L;

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

  @Property
  void everyRequestIsAppliedOnceAndAnsweredOnceWithItsReply(
      @ForAll("histories") List<Action> history, @ForAll("limits") int maxUnacked) {
    Simulation sim = new Simulation(maxUnacked);
    for (Action a : history) {
      sim.run(a);
    }
    sim.heal();

    assertThat(sim.server.retriedAfterAcknowledged).isEmpty();
    assertThat(sim.answers.values()).allMatch(r -> r.hasIncremented(), "answered as applied");
    assertThat(sim.failed).isEmpty();
    assertThat(sim.answers.keySet()).containsExactlyInAnyOrderElementsOf(sim.submitted.keySet());
    assertThat(sim.answerCount.values()).allMatch(n -> n == 1);
    assertThat(sim.server.applications.values()).allMatch(n -> n == 1);
    assertThat(sim.server.applications).hasSameSizeAs(sim.submitted);
    long total = sim.submitted.values().stream().mapToLong(Integer::longValue).sum();
    assertThat(sim.server.counter()).isEqualTo(total);
    // each answer is the reply its request was applied with: the revisions are 1..n, once each
    assertThat(sim.answers.values().stream().map(r -> r.getRevision()).sorted().toList())
        .isEqualTo(
            java.util.stream.LongStream.rangeClosed(1, total == 0 ? 0 : sim.submitted.size())
                .boxed()
                .toList());
  }

  @Provide
  Arbitrary<Integer> limits() {
    return Arbitraries.of(1, 2, 3, 65_536);
  }

  /** The machine, the server and the link between them, on a fake clock. */
  private static final class Simulation {
    final SimulatedServer server;
    final ClientSession machine;
    long now = START;
    SimulatedServer.@Nullable Connection serverSide;
    long conn;
    final ArrayDeque<ClientFrame> toServer = new ArrayDeque<>();
    final ArrayDeque<ServerFrame> toClient = new ArrayDeque<>();
    final Map<Long, Integer> submitted = new HashMap<>();
    final Map<Long, io.semafor.protocol.v1.Response> answers = new HashMap<>();
    final Map<Long, Integer> answerCount = new HashMap<>();
    final List<Failed> failed = new ArrayList<>();

    Simulation(int maxUnacked) {
      server = new SimulatedServer(maxUnacked);
      SessionConfig d = SessionConfig.defaults(List.of("a:1", "b:2", "c:3"));
      machine =
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
        long id = machine.submit(r, now, false, OptionalLong.empty());
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
          machine.disconnected(now, conn);
        }
      }
      effects();
    }

    private void toServer(int n) {
      for (int i = 0; i < n && !toServer.isEmpty() && serverSide != null; i++) {
        toClient.addAll(serverSide.receive(toServer.poll()));
      }
    }

    private void toClient(int n) {
      for (int i = 0; i < n && !toClient.isEmpty(); i++) {
        machine.received(toClient.poll(), now, conn);
        effects();
      }
    }

    /** Moves the clock, ticking at every deadline on the way, as a driver does. */
    private void advance(long nanos) {
      long end = now + nanos;
      for (int i = 0; i < 100_000; i++) {
        OptionalLong due = machine.nextDeadline();
        if (due.isEmpty() || due.getAsLong() > end) {
          break;
        }
        now = Math.max(now, due.getAsLong());
        machine.tick(now);
        effects();
      }
      now = end;
      machine.tick(now);
      effects();
    }

    private void cut() {
      serverSide = null;
      toServer.clear();
      toClient.clear();
    }

    private void effects() {
      for (int round = 0; round < 1_000; round++) {
        long dial = 0;
        for (SessionEffect e : machine.take()) {
          if (e instanceof Dial d) {
            dial = d.conn();
          } else if (e instanceof Send s) {
            if (serverSide != null) {
              toServer.add(s.frame());
            }
          } else if (e instanceof Hangup) {
            cut();
          } else if (e instanceof Completed c) {
            answers.put(c.requestId(), c.response());
            answerCount.merge(c.requestId(), 1, Integer::sum);
          } else if (e instanceof Failed f) {
            failed.add(f);
          }
        }
        if (dial == 0) {
          return;
        }
        cut(); // a new connection: nothing of the old one arrives
        conn = dial;
        serverSide = server.connect();
        machine.connected(now, conn);
      }
      throw new AssertionError("the machine kept dialling");
    }

    /** The link delivers everything from now on, until nothing is left to answer. */
    void heal() {
      for (int i = 0; i < 10_000; i++) {
        if (toServer.isEmpty()
            && toClient.isEmpty()
            && machine.pendingIds().isEmpty()
            && submitted.size() == answers.size()) {
          return;
        }
        toServer(Integer.MAX_VALUE);
        toClient(Integer.MAX_VALUE);
        if (toServer.isEmpty() && toClient.isEmpty()) {
          advance(SessionConfig.MS);
        }
      }
      throw new AssertionError(
          "still unanswered after healing: " + machine.pendingIds() + " in " + machine.phase());
    }
  }
}
