package io.semafor.bench.gate;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time and thread wake-ups so far, summed over its threads from {@code /proc}, as
 * decision 0040's hop budget counts them: nanoseconds on a CPU ({@code schedstat}) and context
 * switches, voluntary and not ({@code status}). Threads that ended are not counted, so a window is
 * read only over threads that live through it.
 */
record ProcessCounters(long cpuNanos, long switches) {
  static ProcessCounters of(long pid) {
    long cpu = 0;
    long switches = 0;
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", "" + pid, "task"))) {
      for (Path task : tasks) {
        try {
          String schedstat = Files.readString(task.resolve("schedstat")).trim();
          int space = schedstat.indexOf(' ');
          cpu += Long.parseLong(space < 0 ? schedstat : schedstat.substring(0, space));
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches")
                || line.startsWith("nonvoluntary_ctxt_switches")) {
              switches += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
        } catch (IOException | RuntimeException e) {
          // the thread ended while being read
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/" + pid + ": " + e.getMessage(), e);
    }
    return new ProcessCounters(cpu, switches);
  }

  ProcessCounters minus(ProcessCounters earlier) {
    return new ProcessCounters(cpuNanos - earlier.cpuNanos, switches - earlier.switches);
  }
}
