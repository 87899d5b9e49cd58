package io.semafor.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The parser fails loudly on a case it would misread (conformance/README.md, "Rules a runner
 * checks"): each refusal names the file, the step and what is wrong.
 */
class CaseParserTest {
  private static final Path FILE = Path.of("c.json");

  private static String kase(String tags, String actors, String steps) {
    return "{\"name\": \"c\", \"description\": \"d\", \"tags\": ["
        + tags
        + "], \"actors\": {"
        + actors
        + "}, \"steps\": ["
        + steps
        + "]}";
  }

  private static void refused(String text, String message) {
    assertThatThrownBy(() -> CaseParser.parse(FILE, text))
        .isInstanceOf(CaseParser.CaseFormatException.class)
        .hasMessageContaining(message);
  }

  private static final String CREATE =
      "{\"op\": \"create\", \"actor\": \"a\", \"args\": {\"name\": \"x\", \"initial\": 1}}";

  @Test
  void aWellFormedCaseParsesIntoItsSteps() throws IOException {
    ConformanceCase c =
        CaseParser.parse(
            FILE,
            kase(
                "\"session\"",
                "\"a\": {\"session_ttl_ms\": 1000}",
                CREATE
                    + ", {\"op\": \"acquire\", \"actor\": \"a\", \"args\": {\"name\": \"x\","
                    + " \"amount\": 1, \"timeout_ms\": -1}, \"start\": \"h\"}"
                    + ", {\"await\": \"h\", \"expect\": {\"granted\": true}}"
                    + ", {\"env\": \"wait_ms\", \"ms\": 5}"));
    assertThat(c.steps())
        .hasExactlyElementsOfTypes(
            Step.OpStep.class, Step.OpStep.class, Step.AwaitStep.class, Step.EnvStep.class);
    assertThat(c.actors().values()).containsExactly(new ConformanceCase.Actor("a", 1000L));
  }

  @Test
  void anUnknownStepIsRefused() {
    refused(kase("", "\"a\": {}", "{\"jump\": \"a\"}"), "exactly one of 'op', 'await', 'env'");
  }

  @Test
  void anUnknownOperationIsRefused() {
    refused(kase("", "\"a\": {}", "{\"op\": \"grab\", \"actor\": \"a\"}"), "unknown op 'grab'");
  }

  @Test
  void anUnknownFieldOfAStepIsRefused() {
    refused(
        kase("", "\"a\": {}", CREATE.replace("}}", "}, \"expects\": {}}")),
        "unknown field 'expects'");
  }

  @Test
  void anUnknownArgumentIsRefused() {
    refused(
        kase("", "\"a\": {}", CREATE.replace("\"initial\": 1", "\"initial\": 1, \"cap\": 3")),
        "unknown argument 'cap'");
  }

  @Test
  void anExpectationOfAFieldTheOperationDoesNotHaveIsRefused() {
    refused(
        kase("", "\"a\": {}", CREATE.replace("}}", "}, \"expect\": {\"granted\": true}}")),
        "'granted' is not a result field of create");
  }

  @Test
  void aVariableUsedBeforeItIsBoundIsRefused() {
    refused(
        kase(
            "\"lease\"",
            "\"a\": {}",
            "{\"op\": \"release_lease\", \"actor\": \"a\", \"args\": {\"permit_id\": \"$p\"}}"),
        "variable $p is not bound");
  }

  @Test
  void anAwaitOfAHandleNeverStartedIsRefused() {
    refused(
        kase("", "\"a\": {}", "{\"await\": \"h\", \"expect\": {\"amount\": 1}}"),
        "no open handle 'h'");
  }

  @Test
  void tagsThatDoNotMatchTheStepsAreRefused() {
    refused(kase("\"session\"", "\"a\": {}", CREATE), "must be exactly what the steps use");
    refused(
        kase("", "\"a\": {}", "{\"env\": \"kill\", \"actor\": \"a\"}"),
        "must be exactly what the steps use: [kill]");
  }

  @Test
  void aClusterSafeCaseWithAnEnvironmentStepIsRefused() {
    refused(
        kase("\"kill\", \"cluster-safe\"", "\"a\": {}", "{\"env\": \"kill\", \"actor\": \"a\"}"),
        "a cluster-safe case has no kill step");
  }

  /** A case that creates x, then gets it with {@code fields} added to the get step. */
  private static String createThenGet(String fields) {
    return kase(
        "",
        "\"a\": {}",
        CREATE
            + ", {\"op\": \"get\", \"actor\": \"a\", \"args\": {\"name\": \"x\"}"
            + fields
            + "}");
  }

  @Test
  void aStepThatNeedsASessionIsMarkedSoARunnerWithoutSessionsCanLeaveItOut() throws IOException {
    ConformanceCase c = CaseParser.parse(FILE, createThenGet(", \"needs_session\": true"));
    assertThat(c.steps())
        .extracting(step -> ((Step.OpStep) step).needsSession())
        .containsExactly(false, true);
  }

  @Test
  void aStepThatNeedsASessionBindsNothingLaterStepsWouldMiss() {
    refused(
        createThenGet(", \"bind\": {\"v\": \"value\"}, \"needs_session\": true"),
        "a step that needs a session neither starts a handle nor binds");
  }

  @Test
  void needsSessionIsTrueOrAbsent() {
    refused(createThenGet(", \"needs_session\": false"), "needs_session is true or absent");
  }

  @Test
  void aFrozenActorCannotAct() {
    refused(
        kase("\"freeze\"", "\"a\": {}", "{\"env\": \"freeze\", \"actor\": \"a\"}, " + CREATE),
        "actor a is FROZEN: it cannot act");
  }

  @Test
  void aCancelOfAnotherActorsHandleIsRefused() {
    refused(
        kase(
            "\"session\"",
            "\"a\": {}, \"b\": {}",
            CREATE
                + ", {\"op\": \"acquire\", \"actor\": \"a\", \"args\": {\"name\": \"x\","
                + " \"amount\": 1, \"timeout_ms\": -1}, \"start\": \"h\"}"
                + ", {\"op\": \"cancel\", \"actor\": \"b\", \"args\": {\"handle\": \"h\"}}"),
        "handle \"h\" is another actor's");
  }
}
