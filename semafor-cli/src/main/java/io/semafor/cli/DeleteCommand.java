package io.semafor.cli;

import io.semafor.client.SemaforClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "delete",
    description = "Delete a semaphore; its waiters fail with DELETED.",
    mixinStandardHelpOptions = true)
final class DeleteCommand extends ClientCommand {
  @Parameters(paramLabel = "NAME")
  String name = "";

  @Override
  int run(SemaforClient client, Output output) {
    client.semaphore(name).delete();
    output.result("deleted " + name, Output.fields("name", name, "deleted", true));
    return ExitCodes.OK;
  }
}
