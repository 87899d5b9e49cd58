package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "list",
    description = {
      "Print the semaphores as a table, sorted by name.",
      "With PREFIX, only those whose names start with it. Columns: value, capacity (- for"
          + " none), waiters, holders (sessions owning permits) and leases."
    },
    mixinStandardHelpOptions = true)
final class ListCommand extends ClientCommand {
  @Parameters(paramLabel = "PREFIX", defaultValue = "", arity = "0..1")
  String prefix = "";

  @Option(names = "--names", description = "Print the names only, one per line (for scripts).")
  boolean namesOnly;

  @Override
  int run(SemaforClient client, Output output) {
    if (namesOnly) {
      List<String> names = client.list(prefix);
      if (names.isEmpty() && !output.json()) {
        return ExitCodes.OK; // nothing to print, like ls in an empty directory
      }
      output.result(String.join(System.lineSeparator(), names), Output.fields("names", names));
      return ExitCodes.OK;
    }
    List<SemaphoreInfo> semaphores = client.listSemaphores(prefix);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (SemaphoreInfo s : semaphores) {
      rows.add(
          Output.fields(
              "name",
              s.name(),
              "value",
              s.value(),
              "capacity",
              s.options().capacity(),
              "waiters",
              s.waiters(),
              "holders",
              s.holders(),
              "leases",
              s.leaseCount()));
    }
    if (semaphores.isEmpty() && !output.json()) {
      return ExitCodes.OK;
    }
    output.result(table(semaphores), Output.fields("semaphores", rows));
    return ExitCodes.OK;
  }

  /** The semaphores as a table under a header. */
  static String table(List<SemaphoreInfo> semaphores) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"NAME", "VALUE", "CAPACITY", "WAITERS", "HOLDERS", "LEASES"});
    for (SemaphoreInfo s : semaphores) {
      rows.add(
          new String[] {
            s.name(),
            Long.toString(s.value()),
            s.options().capacity() == 0 ? "-" : Long.toString(s.options().capacity()),
            Integer.toString(s.waiters()),
            Integer.toString(s.holders()),
            Integer.toString(s.leaseCount())
          });
    }
    return Tables.format(rows);
  }
}
