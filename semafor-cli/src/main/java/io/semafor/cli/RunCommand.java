package io.semafor.cli;

import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "run",
    description = {
      "Run a command while holding K owned permits, like flock and consul lock.",
      "Acquires them (the session kept alive), runs COMMAND, releases them, and exits with the",
      "command's status. If they cannot be had within --timeout, exits 75 without running it.",
      "If this process dies, the permits come back after the session TTL."
    },
    mixinStandardHelpOptions = true)
final class RunCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(
      index = "1..*",
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments, after --.")
  List<String> command = new ArrayList<>();

  @Option(
      names = {"-n", "--permits"},
      paramLabel = "K",
      defaultValue = "1",
      description = "Permits to hold (default ${DEFAULT-VALUE}).")
  long permits = 1;

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "forever",
      converter = Durations.class,
      description = "How long to wait for them (default forever).")
  Duration timeout = Durations.FOREVER;

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException, IOException {
    Permit permit = client.semaphore(name).tryAcquirePermit(permits, timeout);
    if (permit == null) {
      spec.commandLine()
          .getErr()
          .println(
              "semafor run: timed out waiting for " + permits + " of " + name + "; not running");
      return ExitCodes.TIMED_OUT;
    }
    try (permit) {
      Process child = new ProcessBuilder(command).inheritIO().start();
      try {
        return child.waitFor();
      } catch (InterruptedException e) {
        child.destroy();
        throw e;
      }
    }
  }
}
