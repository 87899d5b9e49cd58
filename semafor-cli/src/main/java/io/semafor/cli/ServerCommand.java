package io.semafor.cli;

import io.semafor.server.Main;
import io.semafor.server.ServerConfig;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "server",
    description = {
      "Run a single-node server in this process until Ctrl-C.",
      "State lives in memory; no external service. Prometheus metrics on",
      "http://HOST:ADMIN_PORT/metrics, health on /health."
    },
    mixinStandardHelpOptions = true)
final class ServerCommand implements Callable<Integer> {
  @Option(
      names = "--host",
      paramLabel = "H",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default ${DEFAULT-VALUE}).")
  String host = "127.0.0.1";

  @Option(
      names = "--port",
      paramLabel = "P",
      defaultValue = "7400",
      description = "Client port (default ${DEFAULT-VALUE}; 0: any free port).")
  int port = 7400;

  @Option(
      names = "--admin-port",
      paramLabel = "A",
      defaultValue = "7401",
      description = "Metrics and health port (default ${DEFAULT-VALUE}; -1: none).")
  int adminPort = 7401;

  @Option(
      names = "--session-ttl",
      paramLabel = "D",
      defaultValue = "10s",
      converter = Durations.class,
      description = "TTL of sessions that do not ask for one (default ${DEFAULT-VALUE}).")
  Duration sessionTtl = Duration.ofSeconds(10);

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "Network threads (default: one per processor).")
  int ioThreads = Runtime.getRuntime().availableProcessors();

  @Option(
      names = "--max-semaphore-series",
      paramLabel = "N",
      defaultValue = "1000",
      description =
          "Semaphores with their own metric series; the rest are summed as _other"
              + " (default ${DEFAULT-VALUE}).")
  int maxSemaphoreSeries = 1000;

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config;
    try {
      config =
          ServerConfig.builder()
              .host(host)
              .port(port)
              .adminPort(adminPort)
              .defaultSessionTtl(sessionTtl)
              .ioThreads(ioThreads)
              .maxSemaphoreSeries(maxSemaphoreSeries)
              .build();
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(
          new picocli.CommandLine(this), e.getMessage(), e, null, null);
    }
    Main.run(config);
    return ExitCodes.OK;
  }
}
