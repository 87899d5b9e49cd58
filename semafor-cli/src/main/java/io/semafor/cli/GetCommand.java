package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "get",
    description =
        "Print a semaphore's value (JSON: with the counts of waiters, holders and leases, and"
            + " the amounts owned and leased).",
    mixinStandardHelpOptions = true)
final class GetCommand extends ClientCommand {
  @Parameters(paramLabel = "NAME")
  String name = "";

  @Override
  int run(SemaforClient client, Output output) {
    SemaphoreInfo info = client.semaphore(name).info();
    output.result(
        Long.toString(info.value()),
        Output.fields(
            "name", name,
            "value", info.value(),
            "waiters", info.waiters(),
            "holders", info.holders(),
            "leases", info.leaseCount(),
            "owned", info.owned(),
            "leased", info.leased(),
            "revision", info.revision(),
            "options", Parsing.options(info.options())));
    return ExitCodes.OK;
  }
}
