package io.semafor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "cluster",
    description = "Inspect a cluster.",
    mixinStandardHelpOptions = true,
    subcommands = {ClusterCommand.Status.class})
final class ClusterCommand {

  @Command(
      name = "status",
      description = {
        "Show every member: its role, whom it takes for leader, the term, commit and applied",
        "index, from each node's admin endpoint. Exit 3 if no node answers."
      },
      mixinStandardHelpOptions = true)
  static final class Status implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(
        names = "--admin",
        paramLabel = "HOST:PORT,...",
        required = true,
        description = "Each node's admin address (its --admin-port).")
    String admin = "";

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() throws InterruptedException {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      List<Map<String, Object>> members = new ArrayList<>();
      int answered = 0;
      for (String address : admin.split(",", -1)) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("admin", address.trim());
        try {
          String body =
              http.send(
                      HttpRequest.newBuilder(URI.create("http://" + address.trim() + "/cluster"))
                          .timeout(Duration.ofSeconds(3))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body();
          @SuppressWarnings("unchecked")
          Map<String, Object> status = JSON.readValue(body, Map.class);
          row.putAll(status);
          answered++;
        } catch (IOException | IllegalArgumentException e) {
          row.put("role", "unreachable");
        }
        members.add(row);
      }
      Output output = new Output(spec.commandLine().getOut(), json);
      StringBuilder text = new StringBuilder();
      text.append(
          String.format(
              "%-22s %-6s %-12s %-8s %6s %12s %12s",
              "admin", "node", "role", "leader", "term", "commit", "applied"));
      for (Map<String, Object> m : members) {
        text.append(
            String.format(
                "%n%-22s %-6s %-12s %-8s %6s %12s %12s",
                m.get("admin"),
                m.getOrDefault("node", "?"),
                m.get("role"),
                m.getOrDefault("leader", "?"),
                m.getOrDefault("term", "?"),
                m.getOrDefault("commitIndex", "?"),
                m.getOrDefault("appliedIndex", "?")));
      }
      output.result(text.toString(), Output.fields("members", members));
      return answered == 0 ? ExitCodes.UNREACHABLE : ExitCodes.OK;
    }
  }
}
