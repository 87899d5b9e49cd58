package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.client.Semop;
import io.semafor.server.options.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "semop",
    description = {
      "Apply NAME:DELTA terms atomically, all or none (SysV semop).",
      "A negative delta takes, a positive one adds, 0 waits for zero. Exit 75 if it timed out;"
          + " with --nowait a term that would wait fails the whole semop with WOULD_BLOCK (exit"
          + " 1)."
    },
    mixinStandardHelpOptions = true)
final class SemopCommand extends ClientCommand {
  @Parameters(arity = "1..*", paramLabel = "NAME:DELTA")
  List<String> terms = new ArrayList<>();

  @Option(names = "--nowait", description = "Fail instead of waiting (IPC_NOWAIT on every term).")
  boolean noWait;

  @Option(
      names = "--owned",
      description = "Owned (SEM_UNDO on every term): undone when this command's session ends.")
  boolean owned;

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "forever",
      converter = Durations.class,
      description = "How long to wait (default forever).")
  Duration timeout = Durations.FOREVER;

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException {
    Semop semop = client.semop();
    for (String text : terms) {
      Parsing.Term term = Parsing.term(text);
      if (term.delta() < 0) {
        semop.take(term.name(), -term.delta());
      } else if (term.delta() > 0) {
        semop.add(term.name(), term.delta());
      } else {
        semop.waitForZero(term.name());
      }
      if (noWait) {
        semop.noWait();
      }
      if (owned) {
        semop.owned();
      }
    }
    Semop.Result result = semop.execute(timeout);
    Map<String, Object> fields =
        Output.fields(
            "done", result.done(),
            "token", result.token(),
            "sequence", result.sequence(),
            "slots", result.slots());
    if (!result.done()) {
      output.timedOut(
          "semop: not every operation could proceed within " + Durations.format(timeout), fields);
      return ExitCodes.TIMED_OUT;
    }
    output.result("done, token " + result.token(), fields);
    return ExitCodes.OK;
  }
}
