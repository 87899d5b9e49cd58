package io.semafor.cli;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import io.semafor.server.options.Durations;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "watch",
    description = {
      "Print a semaphore's state, then a line each time it changes, until Ctrl-C.",
      "A change is in the value, queue, holders or leases. The state is read every --interval;",
      "changes closer together than that are seen as one. With --json, one object per line."
    },
    mixinStandardHelpOptions = true)
final class WatchCommand extends ClientCommand {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  @Parameters(paramLabel = "NAME")
  String name = "";

  @Option(
      names = "--interval",
      paramLabel = "D",
      defaultValue = "20ms",
      converter = Durations.class,
      description = "How often to read the state (default ${DEFAULT-VALUE}).")
  Duration interval = Duration.ofMillis(20);

  @Option(
      names = "--changes",
      paramLabel = "N",
      description = "Stop after printing N states (default: run until Ctrl-C).")
  long changes = Long.MAX_VALUE;

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException {
    NamedSemaphore semaphore = client.semaphore(name);
    Object last = null;
    long printed = 0;
    while (printed < changes) {
      SemaphoreInfo info = semaphore.inspect(); // NOT_FOUND once deleted: exit 1 with the code
      Object shape = shape(info);
      if (!Objects.equals(shape, last)) {
        last = shape;
        printed++;
        Map<String, Object> json = InspectCommand.json(info);
        json.put("time", LocalTime.now(ZoneId.systemDefault()).format(TIME));
        output.result(line(info), json);
      }
      Thread.sleep(Math.max(1, interval.toMillis()));
    }
    return ExitCodes.OK;
  }

  /** What counts as a change: everything but the clocks (ages and times left). */
  private static Object shape(SemaphoreInfo info) {
    return List.of(
        info.value(),
        info.options(),
        info.queue().stream()
            .map(w -> List.of(w.sequence(), w.sessionId(), w.kind(), w.amount()))
            .toList(),
        info.holderList(),
        info.leases().stream()
            .map(l -> List.of(l.permitId(), l.sessionId(), l.amount(), l.token()))
            .toList());
  }

  private static String line(SemaphoreInfo info) {
    return String.format(
        "%s %s = %d, %d waiting, %d holding, %d leases (revision %d)",
        LocalTime.now(ZoneId.systemDefault()).format(TIME),
        info.name(),
        info.value(),
        info.queue().size(),
        info.holderList().size(),
        info.leases().size(),
        info.revision());
  }
}
