package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.load.LoadGenerator;
import io.semafor.server.options.Durations;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    description = {
      "Run the load generator against a running server and print its table.",
      "W1 uncontended (permits = clients), W2 contended (4 permits), W3 handoff (2 clients);"
          + " see docs/benchmarks.md."
    },
    mixinStandardHelpOptions = true)
final class BenchCommand extends ClientCommand {
  @Option(
      names = "--workload",
      paramLabel = "W1|W2|W3",
      defaultValue = "W1",
      description = "Default ${DEFAULT-VALUE}.")
  String workload = "W1";

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "16",
      description = "Clients, each on its own connection (default ${DEFAULT-VALUE}).")
  int clients = 16;

  @Option(
      names = "--duration",
      paramLabel = "D",
      defaultValue = "10s",
      description = "Measured time, after 2 s of warm-up (default ${DEFAULT-VALUE}).")
  String duration = "10s";

  @Override
  int run(SemaforClient probe, Output output) throws Exception {
    if (!List.of("W1", "W2", "W3").contains(workload)) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--workload: '" + workload + "' is not W1, W2 or W3");
    }
    if (clients < 1) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--clients: must be at least 1, was " + clients);
    }
    if (Durations.parse(duration) == null) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--duration: must be finite");
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server",
                server.server,
                "--workloads",
                workload,
                "--clients",
                Integer.toString(clients),
                "--duration",
                duration,
                "--warmup",
                "2s"));
    if (json()) {
      args.add("--json");
    }
    LoadGenerator.main(args.toArray(new String[0]));
    return ExitCodes.OK;
  }
}
