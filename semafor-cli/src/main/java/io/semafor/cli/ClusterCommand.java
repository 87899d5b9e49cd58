package io.semafor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "cluster",
    description = "Inspect a cluster and change its membership.",
    mixinStandardHelpOptions = true,
    subcommands = {
      ClusterCommand.Status.class,
      ClusterCommand.Add.class,
      ClusterCommand.Remove.class
    })
final class ClusterCommand {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code request} with {@code Authorization: Bearer TOKEN}, unless the token is empty. */
  static HttpRequest.Builder authorized(HttpRequest.Builder request, String token) {
    return token.isEmpty() ? request : request.header("Authorization", "Bearer " + token);
  }

  /**
   * A client for the admin ports: HTTPS with the TLS options' CA (and client certificate) when any
   * is given, else plain HTTP. Java's HTTP client checks the server's name against its certificate.
   */
  static HttpClient http(TlsOptions tls) {
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
    if (tls.enabled()) {
      builder.sslContext(tls.sslContext());
    }
    return builder.build();
  }

  /** {@code https} when the TLS options are given, else {@code http}. */
  static String scheme(TlsOptions tls) {
    return tls.enabled() ? "https" : "http";
  }

  /** What {@code add} and {@code remove} share: where to send the change and how to report it. */
  abstract static class MembershipChange implements Callable<Integer> {
    @Option(
        names = "--admin",
        paramLabel = "HOST:PORT,...",
        required = true,
        description =
            "Admin addresses of current members; the first that answers makes the change.")
    String admin = "";

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin TokenOption credentials = new TokenOption();
    @Mixin TlsOptions tls = new TlsOptions();

    @Spec CommandSpec spec = CommandSpec.create();

    abstract HttpRequest.Builder request(URI members);

    @Override
    public Integer call() throws InterruptedException {
      HttpClient http = http(tls);
      Output output = new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), json);
      for (String address : admin.split(",", -1)) {
        HttpResponse<String> response;
        try {
          URI members = URI.create(scheme(tls) + "://" + address.trim() + "/cluster/members");
          // a change waits for the new member to catch up: up to a minute on the node's side
          response =
              http.send(
                  authorized(request(members), credentials.token())
                      .timeout(Duration.ofSeconds(90))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
        } catch (IOException | IllegalArgumentException e) {
          continue; // this node did not answer: try the next one
        }
        Map<String, Object> body;
        try {
          @SuppressWarnings("unchecked")
          Map<String, Object> parsed = JSON.readValue(response.body(), Map.class);
          body = parsed;
        } catch (IOException e) {
          body = Output.fields("error", "UNAVAILABLE", "message", response.body());
        }
        if (response.statusCode() == 200) {
          String list = String.valueOf(body.get("members"));
          output.result("members: " + list, Output.fields("members", List.of(list.split(",", -1))));
          return ExitCodes.OK;
        }
        String code = String.valueOf(body.getOrDefault("error", "UNAVAILABLE"));
        String message = String.valueOf(body.getOrDefault("message", ""));
        if (json) {
          output.result("", Output.fields("error", code, "message", message));
        } else {
          spec.commandLine().getErr().println("semafor: " + code + ": " + message);
          spec.commandLine().getErr().flush();
        }
        if (response.statusCode() == 504) {
          return ExitCodes.TIMED_OUT; // OUTCOME_UNKNOWN: the change may still be made
        }
        return response.statusCode() == 400 ? ExitCodes.USAGE : ExitCodes.FAILED;
      }
      String message = "no admin endpoint answered at " + admin;
      if (json) {
        output.result("", Output.fields("error", "UNAVAILABLE", "message", message));
      } else {
        spec.commandLine().getErr().println("semafor: UNAVAILABLE: " + message);
        spec.commandLine().getErr().flush();
      }
      return ExitCodes.UNREACHABLE;
    }
  }

  @Command(
      name = "add",
      description = {
        "Add a member through Raft reconfiguration.",
        "Start the new node first with `semafor server --join`; the leader brings it up to date"
            + " (log or snapshot) before the change commits. One member at a time. Exit 0 with the"
            + " members after the change."
      },
      mixinStandardHelpOptions = true)
  static final class Add extends MembershipChange {
    @Parameters(
        index = "0",
        paramLabel = "ID=HOST:CLIENT_PORT:RAFT_PORT",
        description = "The new member, written as in `semafor server --peers`.")
    String member = "";

    @Override
    HttpRequest.Builder request(URI members) {
      return HttpRequest.newBuilder(members)
          .POST(HttpRequest.BodyPublishers.ofString(member, StandardCharsets.UTF_8));
    }
  }

  @Command(
      name = "remove",
      description = {
        "Remove a member through Raft reconfiguration.",
        "A removed leader steps down; the removed node serves no one and can then be stopped."
            + " Exit 0 with the members after."
      },
      mixinStandardHelpOptions = true)
  static final class Remove extends MembershipChange {
    @Parameters(index = "0", paramLabel = "ID", description = "The member's node id.")
    String id = "";

    @Override
    HttpRequest.Builder request(URI members) {
      return HttpRequest.newBuilder(
              members.resolve("/cluster/members/" + URLEncoder.encode(id, StandardCharsets.UTF_8)))
          .DELETE();
    }
  }

  @Command(
      name = "status",
      description = {
        "Show every member's role, leader, term, commit and applied index.",
        "Each node answers for itself on its admin endpoint; a node that authenticates wants a"
            + " token with the cluster permission. Exit 0 if every node answered; else each one"
            + " that did not is named on stderr, and the exit status is 1 if one refused the"
            + " credentials, 3 if one could not be reached."
      },
      mixinStandardHelpOptions = true)
  static final class Status implements Callable<Integer> {
    @Option(
        names = "--admin",
        paramLabel = "HOST:PORT,...",
        required = true,
        description = "Each node's admin address (its `semafor server --admin-port`).")
    String admin = "";

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Mixin TokenOption credentials = new TokenOption();
    @Mixin TlsOptions tls = new TlsOptions();

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() throws InterruptedException {
      HttpClient http = http(tls);
      List<Map<String, Object>> members = new ArrayList<>();
      List<String> problems = new ArrayList<>();
      int refused = 0;
      int unreachable = 0;
      String token = credentials.token();
      for (String address : admin.split(",", -1)) {
        String where = address.trim();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("admin", where);
        try {
          String body =
              http.send(
                      authorized(
                              HttpRequest.newBuilder(
                                  URI.create(scheme(tls) + "://" + where + "/cluster")),
                              token)
                          .timeout(Duration.ofSeconds(3))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body();
          @SuppressWarnings("unchecked")
          Map<String, Object> status = JSON.readValue(body, Map.class);
          if (status.containsKey("error")) {
            // 401/403: the node answered but refused these credentials; its message names the
            // permission it wants and the principal it saw
            row.put("role", "refused");
            row.put("error", String.valueOf(status.get("error")));
            row.put("message", String.valueOf(status.getOrDefault("message", "")));
            problems.add(where + ": " + row.get("error") + ": " + row.get("message"));
            refused++;
          } else {
            row.putAll(status);
          }
        } catch (IOException | IllegalArgumentException e) {
          row.put("role", "unreachable");
          row.put("error", "UNAVAILABLE");
          String why =
              e.getMessage() == null
                  ? e.getClass().getSimpleName()
                  : e.getClass().getSimpleName() + ": " + e.getMessage();
          row.put("message", "no answer from its admin endpoint (" + why + ")");
          problems.add(where + ": UNAVAILABLE: " + row.get("message"));
          unreachable++;
        }
        members.add(row);
      }
      List<String[]> table = new ArrayList<>();
      table.add(new String[] {"ADMIN", "NODE", "ROLE", "LEADER", "TERM", "COMMIT", "APPLIED"});
      for (Map<String, Object> m : members) {
        table.add(
            new String[] {
              String.valueOf(m.get("admin")),
              cell(m, "node"),
              cell(m, "role"),
              cell(m, "leader"),
              cell(m, "term"),
              cell(m, "commitIndex"),
              cell(m, "appliedIndex")
            });
      }
      Output output = new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), json);
      output.result(Tables.format(table), Output.fields("members", members));
      if (!json) {
        for (String problem : problems) {
          spec.commandLine().getErr().println("semafor: " + problem);
        }
        spec.commandLine().getErr().flush();
      }
      if (refused > 0) {
        return ExitCodes.FAILED; // a node refused these credentials: the table is incomplete
      }
      return unreachable > 0 ? ExitCodes.UNREACHABLE : ExitCodes.OK;
    }

    /** A field of a member's status for the table: {@code -} when the node did not give it. */
    private static String cell(Map<String, Object> member, String key) {
      Object value = member.get(key);
      return value == null || String.valueOf(value).isEmpty() ? "-" : String.valueOf(value);
    }
  }
}
