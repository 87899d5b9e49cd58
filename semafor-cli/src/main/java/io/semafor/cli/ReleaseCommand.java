package io.semafor.cli;

import io.semafor.client.SemaforClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "release",
    description = "End a lease now, from any process. Exit 1 (NOT_FOUND) if it is already gone.",
    mixinStandardHelpOptions = true)
final class ReleaseCommand extends ClientCommand {
  @Parameters(paramLabel = "PERMIT_ID")
  long permitId;

  @Mixin LeaseSemaphoreOption semaphore = new LeaseSemaphoreOption();

  @Override
  int run(SemaforClient client, Output output) {
    boolean released;
    try {
      released = client.lease(semaphore.name, permitId).release();
    } catch (io.semafor.client.SemaforException e) {
      throw semaphore.explain(e);
    }
    if (!released) {
      throw new io.semafor.client.SemaforException(
          io.semafor.ErrorCode.NOT_FOUND,
          "lease " + permitId + " does not exist (it ended, or was released)");
    }
    output.result(
        "released lease " + permitId, Output.fields("permitId", permitId, "released", true));
    return ExitCodes.OK;
  }
}
