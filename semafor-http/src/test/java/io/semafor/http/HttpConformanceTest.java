package io.semafor.http;

import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.semafor.conformance.CaseParser;
import io.semafor.conformance.CaseRun;
import io.semafor.conformance.ConformanceCase;
import io.semafor.conformance.Op;
import io.semafor.conformance.Step;
import io.semafor.conformance.Step.EnvStep;
import io.semafor.conformance.Step.OpStep;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance kit (conformance/README.md) run over the HTTP API: every case file, one dynamic
 * test each named by the case, against a fresh node with its HTTP API per case, each actor an HTTP
 * caller with its own keep-alive connections and bearer token ({@link HttpActor}). A case that
 * needs what an HTTP caller does not have — an owned permit, a WaitMany list, a cancel, or a step
 * on a session's connection (cut, deafen, freeze) — is reported skipped with the steps that need
 * it, never silently; a case file the parser refuses fails. A step marked {@code needs_session} (it
 * shows what only a session has, such as what its end gives back) is left out and the rest of the
 * case runs; {@code close} and {@code kill} are the caller going away, which an HTTP caller can do
 * (it leaves nothing behind: it has no session), and an actor's {@code session_ttl_ms} does not
 * apply.
 */
class HttpConformanceTest {
  /** Where the kit is: the repository's conformance/, beside this module. */
  static final Path KIT = Path.of(System.getProperty("semafor.conformance.dir", "../conformance"));

  @TestFactory
  Stream<DynamicTest> singleNode() throws IOException {
    return CaseParser.caseFiles(KIT.resolve("cases")).stream()
        .map(
            file ->
                dynamicTest(
                    file.getFileName().toString().replaceFirst("\\.json$", ""),
                    file.toUri(),
                    () -> {
                      ConformanceCase kase = CaseParser.parse(file);
                      List<String> needs = needsASession(kase);
                      if (!needs.isEmpty()) {
                        Assumptions.abort("needs a session: " + String.join(", ", needs));
                      }
                      run(kase);
                    }));
  }

  /**
   * What in {@code kase} an HTTP caller cannot do, by step: the operations of a session, an owned
   * semop op, an actor's session TTL, and the environment steps on a session's connection. Empty:
   * the case runs.
   */
  static List<String> needsASession(ConformanceCase kase) {
    List<String> needs = new ArrayList<>();
    Map<String, List<Integer>> steps = new LinkedHashMap<>(); // what, at which steps
    for (Step step : kase.steps()) {
      String what = null;
      if (step instanceof OpStep s && s.needsSession()) {
        continue; // left out over HTTP
      }
      if (step instanceof OpStep s) {
        if (!HttpActor.OPS.contains(s.op())) {
          what = s.op().wireName();
        } else if (s.op() == Op.SEMOP && ownedSemop(s)) {
          what = "an owned semop op";
        }
      } else if (step instanceof EnvStep s
          && s.kind() != Step.Env.WAIT_MS
          && s.kind() != Step.Env.KILL) {
        what = s.kind().name().toLowerCase(Locale.ROOT) + " of " + s.actor() + "'s connection";
      }
      if (what != null) {
        steps.computeIfAbsent(what, w -> new ArrayList<>()).add(step.index());
      }
    }
    steps.forEach(
        (what, at) ->
            needs.add(
                what
                    + (at.size() == 1 ? " (step " : " (steps ")
                    + String.join(", ", at.stream().map(String::valueOf).toList())
                    + ")"));
    return needs;
  }

  private static boolean ownedSemop(OpStep s) {
    for (var op : s.args().path("ops")) {
      if (op.path("owned").asBoolean(false)) {
        return true;
      }
    }
    return false;
  }

  /** {@code kase} without its steps marked {@code needs_session}. */
  private static ConformanceCase withoutSessionSteps(ConformanceCase kase) {
    return new ConformanceCase(
        kase.file(),
        kase.name(),
        kase.description(),
        kase.source(),
        kase.tags(),
        kase.actors(),
        kase.steps().stream()
            .filter(step -> !(step instanceof OpStep s && s.needsSession()))
            .toList());
  }

  /** Runs {@code kase} against a fresh node and its HTTP API; fails at the first mismatch. */
  private static void run(ConformanceCase kase) throws InterruptedException {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
        HttpGateway gateway =
            HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null)) {
      Map<String, HttpActor> actors = new LinkedHashMap<>();
      for (String name : kase.actors().keySet()) {
        actors.put(
            name,
            new HttpActor(
                gateway.baseUrl(),
                "conformance-" + name,
                HttpConfig.DEFAULTS.maxWait().toMillis()));
      }
      // only wait_ms and kill among the environment steps: the others are skipped above
      CaseRun.run(
          withoutSessionSteps(kase),
          actors,
          step -> {
            if (step.kind() != Step.Env.KILL) {
              throw new AssertionError("no " + step.kind() + " over HTTP");
            }
            java.util.Objects.requireNonNull(actors.get(step.actor())).goAway();
          });
    }
  }
}
