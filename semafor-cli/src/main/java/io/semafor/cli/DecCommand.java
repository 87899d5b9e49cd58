package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.server.options.Durations;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "dec",
    description = {
      "IRIS decrement: take up to N once the value is positive; prints the amount granted.",
      "The permits are consumed (give them back with inc). Exit 75 if it timed out."
    },
    mixinStandardHelpOptions = true)
final class DecCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "N",
      defaultValue = "1",
      description = "Default 1.")
  long amount;

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "forever",
      converter = Durations.class,
      description = "How long to wait while the value is 0 (500ms, 10s, forever; default).")
  Duration timeout = Durations.FOREVER;

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException {
    long granted =
        Durations.isForever(timeout)
            ? client.semaphore(name).decrement(amount)
            : client.semaphore(name).decrement(amount, timeout);
    output.result(
        Long.toString(granted),
        Output.fields("name", name, "granted", granted, "timedOut", granted == 0));
    if (granted == 0) {
      if (!output.json()) {
        output.timedOut("dec " + name + ": still 0 after " + Durations.format(timeout), Map.of());
      }
      return ExitCodes.TIMED_OUT;
    }
    return ExitCodes.OK;
  }
}
