package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.client.SessionInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code semafor session list|end}: see the live sessions and end a dead holder's by hand. */
@Command(
    name = "session",
    description = "See the live sessions, and end one by hand.",
    mixinStandardHelpOptions = true,
    subcommands = {SessionCommand.ListSessions.class, SessionCommand.End.class})
final class SessionCommand {
  @Command(
      name = "list",
      description = {
        "Print every live session.",
        "Its id, client (name, host, PID as the client reported them), TTL, age, time since its"
            + " last request (IDLE), time since the server last heard from its client, keep-alives"
            + " included (HEARD: the session ends when this passes its TTL), and how many"
            + " semaphores it holds permits on, requests it has waiting and replies it has not"
            + " acknowledged. This command's own session is among them."
      },
      mixinStandardHelpOptions = true)
  static final class ListSessions extends ClientCommand {
    @Override
    int run(SemaforClient client, Output output) {
      List<SessionInfo> sessions = client.sessions();
      List<Map<String, Object>> rows = new ArrayList<>();
      List<String[]> table = new ArrayList<>();
      table.add(
          new String[] {
            "SESSION", "CLIENT", "HOST", "PID", "TTL", "AGE", "IDLE", "HEARD", "HOLDS", "WAITING"
          });
      for (SessionInfo s : sessions) {
        Duration heard = s.sinceHeard();
        Map<String, Object> row =
            Output.fields(
                "sessionId",
                s.sessionId(),
                "client",
                InspectCommand.client(s.client()),
                "ttlMillis",
                s.ttl().toMillis(),
                "ageMillis",
                s.age().toMillis(),
                "sinceLastRequestMillis",
                s.sinceLastRequest().toMillis());
        if (heard != null) { // absent from a server that does not report it
          row.put("sinceHeardMillis", heard.toMillis());
        }
        row.putAll(
            Output.fields(
                "holdings",
                s.holdings(),
                "waiting",
                s.waiting(),
                "unacknowledged",
                s.unacknowledged(),
                "self",
                s.sessionId() == client.sessionId()));
        rows.add(row);
        table.add(
            new String[] {
              s.sessionId() + (s.sessionId() == client.sessionId() ? "*" : ""),
              s.client().name().isEmpty() ? "-" : s.client().name(),
              s.client().host().isEmpty() ? "-" : s.client().host(),
              s.client().pid() == 0 ? "-" : Long.toString(s.client().pid()),
              Parsing.show(s.ttl()),
              Parsing.show(s.age()),
              Parsing.show(s.sinceLastRequest()),
              heard == null ? "-" : Parsing.show(heard),
              Integer.toString(s.holdings()),
              Integer.toString(s.waiting())
            });
      }
      output.result(Tables.format(table), Output.fields("sessions", rows));
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "end",
      description = {
        "End session ID now, as its TTL passing would.",
        "Its waiting requests fail, what it owned goes back to its semaphores, its client is"
            + " told. For a holder that died with a long TTL. Leases it was given outlive it, as"
            + " always: end one with `semafor release PERMIT_ID --semaphore NAME`."
      },
      mixinStandardHelpOptions = true)
  static final class End extends ClientCommand {
    @Parameters(paramLabel = "ID", description = "The session's id, from `session list`.")
    long sessionId;

    @Override
    int run(SemaforClient client, Output output) {
      client.endSession(sessionId);
      output.result(
          "ended session " + sessionId, Output.fields("sessionId", sessionId, "ended", true));
      return ExitCodes.OK;
    }
  }
}
