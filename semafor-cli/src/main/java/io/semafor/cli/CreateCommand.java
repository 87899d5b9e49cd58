package io.semafor.cli;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.SemaphoreInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "create",
    description = "Create a semaphore, or open it unchanged if it exists.",
    mixinStandardHelpOptions = true)
final class CreateCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "INITIAL",
      defaultValue = "0",
      description = "Default 0.")
  long initial;

  @Option(names = "--capacity", paramLabel = "N", description = "The most permits it may hold.")
  long capacity;

  @Option(
      names = "--policy",
      paramLabel = "fifo|barging",
      defaultValue = "fifo",
      description = "Grant order: fifo (default) or barging.")
  String policy = "fifo";

  @Option(
      names = "--max-per-session",
      paramLabel = "N",
      description =
          "The most permits one session may own: 1 is the app-lock rule, one slot per session"
              + " (a second owned take by the same session fails with ALREADY_HELD).")
  int maxPerSession;

  @Override
  int run(SemaforClient client, Output output) {
    SemaphoreOptions options = SemaphoreOptions.DEFAULT;
    if (capacity != 0) {
      options = options.capacity(capacity);
    }
    options = options.policy(Parsing.policy(policy));
    if (maxPerSession != 0) {
      options = options.maxPerSession(maxPerSession);
    }
    boolean created = client.semaphore(name).create(initial, options);
    SemaphoreInfo info;
    try {
      info = client.semaphore(name).info();
    } catch (SemaforException e) {
      if (e.code() != ErrorCode.PERMISSION_DENIED) {
        throw e;
      }
      // created (or found) with `admin`; showing its value needs `read`, which this principal
      // lacks: say what was done rather than fail a command that did it
      output.result(
          (created ? "created " : "exists: ") + name,
          Output.fields("name", name, "created", created));
      return ExitCodes.OK;
    }
    output.result(
        (created ? "created " : "exists: ") + Parsing.describe(info),
        Output.fields(
            "name",
            name,
            "created",
            created,
            "value",
            info.value(),
            "options",
            Parsing.options(info.options())));
    return ExitCodes.OK;
  }
}
