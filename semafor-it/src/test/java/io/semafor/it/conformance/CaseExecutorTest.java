package io.semafor.it.conformance;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.conformance.CaseParser;
import io.semafor.conformance.ConformanceCase;
import io.semafor.embedded.EmbeddedSemafor;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java runner fails a case whose outcome does not match, naming the case, the step and what it
 * saw: a kit whose runner cannot fail would prove nothing.
 */
class CaseExecutorTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();

  @AfterEach
  void stop() {
    semafor.close();
  }

  private void run(String tags, String steps) throws Exception {
    ConformanceCase kase =
        CaseParser.parse(
            Path.of("c.json"),
            "{\"name\": \"c\", \"description\": \"d\", \"tags\": ["
                + tags
                + "], \"actors\": {\"a\": {}, \"b\": {}}, \"steps\": ["
                + "{\"op\": \"create\", \"actor\": \"a\", \"args\": {\"name\": \"x\", \"initial\":"
                + " 1}}, "
                + steps
                + "]}");
    try (CaseExecutor executor = CaseExecutor.proxied(kase, semafor.server().address())) {
      executor.run();
    }
  }

  @Test
  void aResultThatDoesNotMatchFailsTheCaseNamingTheStep() {
    assertThatThrownBy(
            () ->
                run(
                    "",
                    "{\"op\": \"get\", \"actor\": \"b\", \"args\": {\"name\": \"x\"}, \"expect\":"
                        + " {\"value\": 5}, \"note\": \"five\"}"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("c, step 2 (five)")
        .hasMessageContaining("value: expected 5, was 1");
  }

  @Test
  void anErrorWhereSuccessWasExpectedFailsTheCase() {
    assertThatThrownBy(
            () ->
                run(
                    "",
                    "{\"op\": \"increment\", \"actor\": \"b\", \"args\": {\"name\": \"y\","
                        + " \"amount\": 1}}"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected success, was Failure[code=NOT_FOUND");
  }

  @Test
  void anOperationExpectedToWaitThatCompletesFailsTheCase() {
    assertThatThrownBy(
            () ->
                run(
                    "",
                    "{\"op\": \"decrement\", \"actor\": \"b\", \"args\": {\"name\": \"x\","
                        + " \"amount\": 1, \"timeout_ms\": -1}, \"start\": \"h\"}, {\"await\": \"h\","
                        + " \"expect\": {\"pending_after_ms\": 100}}"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("h: expected still pending, but it completed");
  }

  @Test
  void aReadPolledWithinABoundThatNeverMatchesFailsTheCase() {
    assertThatThrownBy(
            () ->
                run(
                    "",
                    "{\"op\": \"get\", \"actor\": \"b\", \"args\": {\"name\": \"x\"}, \"expect\":"
                        + " {\"waiters\": 1}, \"within_ms\": 100}"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("(still, after 100 ms)");
  }
}
