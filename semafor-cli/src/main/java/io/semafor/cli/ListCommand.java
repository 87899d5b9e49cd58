package io.semafor.cli;

import io.semafor.client.SemaforClient;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "list",
    description = "Print the names of the semaphores (starting with PREFIX), one per line, sorted.",
    mixinStandardHelpOptions = true)
final class ListCommand extends ClientCommand {
  @Parameters(paramLabel = "PREFIX", defaultValue = "", arity = "0..1")
  String prefix = "";

  @Override
  int run(SemaforClient client, Output output) {
    List<String> names = client.list(prefix);
    if (names.isEmpty() && !output.json()) {
      return ExitCodes.OK; // nothing to print, like ls in an empty directory
    }
    output.result(String.join(System.lineSeparator(), names), Output.fields("names", names));
    return ExitCodes.OK;
  }
}
