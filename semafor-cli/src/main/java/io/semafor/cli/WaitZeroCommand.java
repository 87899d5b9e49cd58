package io.semafor.cli;

import io.semafor.client.SemaforClient;
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
    output.result(
        reached ? name + " is 0" : "timed out", Output.fields("name", name, "reached", reached));
    return reached ? ExitCodes.OK : ExitCodes.TIMED_OUT;
  }
}
