package io.semafor.it.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.internal.session.SessionConfig;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Exchanges between the client's session machine and the server's, one rule of docs/protocol.md
 * §2–3 each, run over {@link LinkedMachines}: each ends with every request applied once and
 * answered once. With {@code SEMAFOR_RECORD_EXCHANGES=<dir>} in the environment, each is written to
 * {@code <dir>/<name>.json} as an exchange trace; {@code conformance/traces/exchange} holds them,
 * and {@link ExchangeTraceTest} replays each side of each against today's machines.
 */
class ExchangeScenarios {
  private static final long MS = SessionConfig.MS;

  @Test
  void requestsAreAnsweredAndTheirRepliesAcknowledged() throws Exception {
    run(
        "requests-are-answered-and-their-replies-acknowledged",
        "A session opens; two requests are answered; their replies are acknowledged by a"
            + " keep-alive once the acknowledgement delay passes.",
        sim -> {
          sim.submit(1);
          sim.submit(2);
          deliverAll(sim);
          sim.advance(300 * MS);
          deliverAll(sim);
        });
  }

  @Test
  void aRequestLostInACutIsSentAgainOnTheResumedSession() throws Exception {
    run(
        "a-request-lost-in-a-cut-is-sent-again-on-the-resumed-session",
        "The connection breaks with a request in flight to the server: the client resumes its"
            + " session on a new connection and sends the request again; it is applied once.",
        sim -> {
          sim.submit(1);
          deliverAll(sim);
          sim.submit(2);
          sim.cutAndTell();
        });
  }

  @Test
  void aRequestAppliedBeforeACutIsAnsweredOnceWithItsKeptReply() throws Exception {
    run(
        "a-request-applied-before-a-cut-is-answered-once-with-its-kept-reply",
        "The server applies a request and the connection breaks before its reply arrives: the"
            + " client sends it again on the resumed session and gets the reply the server kept,"
            + " not a second application.",
        sim -> {
          sim.submit(1);
          deliverAll(sim);
          sim.submit(3);
          sim.toServer(1);
          sim.cutAndTell();
        });
  }

  @Test
  void aServerThatStopsAnsweringIsLeftForAnotherAddress() throws Exception {
    run(
        "a-server-that-stops-answering-is-left-for-another-address",
        "The server stops answering with a request in flight: within about a second the client"
            + " leaves it, dials the next address, resumes its session there and is answered.",
        sim -> {
          sim.submit(1);
          deliverAll(sim);
          sim.submit(2);
          sim.toServer(1);
          for (int i = 0; i < 30; i++) {
            sim.advance(100 * MS);
          }
        });
  }

  @Test
  void anIdleSessionIsKeptAliveByKeepAlives() throws Exception {
    run(
        "an-idle-session-is-kept-alive-by-keep-alives",
        "A session with nothing to send keeps alive: keep-alives go out on the client's schedule"
            + " and each is answered with a pong.",
        sim -> {
          sim.submit(1);
          deliverAll(sim);
          for (int i = 0; i < 6; i++) {
            sim.advance(1_000 * MS);
            deliverAll(sim);
          }
        });
  }

  private static void deliverAll(LinkedMachines sim) {
    for (int i = 0; i < 10; i++) {
      sim.toServer(Integer.MAX_VALUE);
      sim.toClient(Integer.MAX_VALUE);
    }
  }

  /** Runs {@code script}, heals the link, checks the outcome, and writes the trace if asked. */
  private static void run(String name, String description, Consumer<LinkedMachines> script)
      throws Exception {
    ExchangeLog log =
        new ExchangeLog(
            name,
            description,
            LinkedMachines.START,
            LinkedMachines.ADDRESSES,
            LinkedMachines.GIVE_UP_AFTER);
    LinkedMachines sim = new LinkedMachines(log);
    script.accept(sim);
    sim.heal();

    assertThat(sim.failed).isEmpty();
    assertThat(sim.answers.keySet()).containsExactlyInAnyOrderElementsOf(sim.submitted.keySet());
    assertThat(sim.answerCount.values()).allMatch(n -> n == 1);
    long total = sim.submitted.values().stream().mapToLong(Integer::longValue).sum();
    assertThat(sim.node.value(LinkedMachines.COUNTER)).isEqualTo(total);
    String dir = System.getenv("SEMAFOR_RECORD_EXCHANGES");
    if (dir != null && !dir.isEmpty()) {
      log.write(Path.of(dir));
    }
  }
}
