package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.server.options.Durations;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "renew",
    description = "Make a lease end TTL from now, from any process.",
    mixinStandardHelpOptions = true)
final class RenewCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "PERMIT_ID")
  long permitId;

  @Parameters(index = "1", paramLabel = "TTL", converter = Durations.class)
  Duration ttl = Duration.ZERO;

  @Mixin LeaseSemaphoreOption semaphore = new LeaseSemaphoreOption();

  @Override
  int run(SemaforClient client, Output output) {
    Duration left;
    try {
      left = client.lease(semaphore.name, permitId).renew(ttl);
    } catch (io.semafor.client.SemaforException e) {
      throw semaphore.explain(e);
    }
    output.result(
        "lease " + permitId + " ends in " + Parsing.show(left),
        Output.fields("permitId", permitId, "expiresInMillis", left.toMillis()));
    return ExitCodes.OK;
  }
}
