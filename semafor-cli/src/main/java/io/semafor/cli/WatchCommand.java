package io.semafor.cli;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.SemaphoreWatch;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "watch",
    description = {
      "Print a semaphore's state, then a line for every change until Ctrl-C.",
      "The server pushes each change (in the value, queue, holders or leases) with the revision"
          + " that made it. With --prefix, every semaphore whose name starts with NAME (\"\" for"
          + " all). After a reconnect each semaphore that changed meanwhile is printed once, at"
          + " its latest state. With --json, one object per line."
    },
    mixinStandardHelpOptions = true)
final class WatchCommand extends ClientCommand {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  @Parameters(paramLabel = "NAME")
  String name = "";

  @Option(names = "--prefix", description = "Watch every semaphore whose name starts with NAME.")
  boolean prefix;

  @Option(
      names = "--summary",
      description = "Print the value and the counts only, not the waiters, holders and leases.")
  boolean summary;

  @Option(
      names = "--changes",
      paramLabel = "N",
      description = "Stop after printing N states (default: run until Ctrl-C).")
  long changes = Long.MAX_VALUE;

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException {
    if (!prefix && name.isEmpty()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "NAME: empty (watch --prefix \"\" watches every semaphore)");
    }
    BlockingQueue<SemaphoreWatch.Event> events = new LinkedBlockingQueue<>();
    SemaphoreWatch watch =
        prefix
            ? client.watchPrefix(name, summary, events::add)
            : client.watch(name, summary, events::add);
    try {
      long printed = 0;
      boolean synced = false;
      while (printed < changes) {
        SemaphoreWatch.Event e = events.take();
        if (e instanceof SemaphoreWatch.Changed c) {
          printed++;
          Map<String, Object> json = InspectCommand.json(c.state());
          json.put("time", now());
          output.result(line(c.state()), json);
        } else if (e instanceof SemaphoreWatch.Deleted d) {
          printed++;
          output.result(
              String.format("%s %s deleted (revision %d)", now(), d.name(), d.revision()),
              Output.fields("name", d.name(), "deleted", true, "revision", d.revision()));
        } else if (e instanceof SemaphoreWatch.Synced s) {
          if (!synced && !prefix && printed == 0) {
            output.note(
                name + " does not exist yet: waiting for it (revision " + s.revision() + ")");
          }
          synced = true;
        } else if (e instanceof SemaphoreWatch.Resynced r) {
          output.note("resynchronising at revision " + r.revision() + ": every state follows");
        } else if (e instanceof SemaphoreWatch.Failed f) {
          throw f.error();
        }
      }
    } finally {
      watch.close();
    }
    return ExitCodes.OK;
  }

  private static String now() {
    return LocalTime.now(ZoneId.systemDefault()).format(TIME);
  }

  private static String line(SemaphoreInfo info) {
    return String.format(
        "%s %s = %d, %d waiting, %d holding, %d leases (revision %d)",
        now(),
        info.name(),
        info.value(),
        info.waiters(),
        info.holders(),
        info.leaseCount(),
        info.revision());
  }
}
