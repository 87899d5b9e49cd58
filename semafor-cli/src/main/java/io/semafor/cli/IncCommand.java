package io.semafor.cli;

import io.semafor.client.SemaforClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "inc",
    description = "Add permits; prints the new value.",
    mixinStandardHelpOptions = true)
final class IncCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "N",
      defaultValue = "1",
      description = "Default 1.")
  long amount;

  @Override
  int run(SemaforClient client, Output output) {
    long value = client.semaphore(name).increment(amount);
    output.result(Long.toString(value), Output.fields("name", name, "value", value));
    return ExitCodes.OK;
  }
}
