package io.semafor.cli;

import io.semafor.client.SemaforClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "set",
    description = "Set a semaphore's value; prints the value it had.",
    mixinStandardHelpOptions = true)
final class SetCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(index = "1", paramLabel = "VALUE")
  long value;

  @Override
  int run(SemaforClient client, Output output) {
    long previous = client.semaphore(name).set(value);
    output.result(
        name + ": " + previous + " -> " + value,
        Output.fields("name", name, "previous", previous, "value", value));
    return ExitCodes.OK;
  }
}
