package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.server.options.Durations;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "wait-zero",
    description = "Wait until the value is 0 (SysV wait-for-zero). Exit 75 if it timed out.",
    mixinStandardHelpOptions = true)
final class WaitZeroCommand extends ClientCommand {
  @Parameters(paramLabel = "NAME")
  String name = "";

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "forever",
      converter = Durations.class,
      description = "How long to wait (default forever).")
  Duration timeout = Durations.FOREVER;

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException {
    boolean reached = client.semaphore(name).awaitZero(timeout);
    if (!reached) {
      output.timedOut(
          "wait-zero " + name + ": not 0 within " + Durations.format(timeout),
          Output.fields("name", name, "reached", false));
      return ExitCodes.TIMED_OUT;
    }
    output.result(name + " is 0", Output.fields("name", name, "reached", true));
    return ExitCodes.OK;
  }
}
