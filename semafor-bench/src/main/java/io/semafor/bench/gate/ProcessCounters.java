package io.semafor.bench.gate;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A process's CPU time and thread wake-ups over a window, from {@code /proc}, as decision 0040's
 * hop budget counts them: nanoseconds on a CPU ({@code schedstat}) and context switches, voluntary
 * and not ({@code status}), per thread. A thread alive at both ends counts its difference; a thread
 * started inside the window counts in full; a thread that ended inside it cannot be read any more
 * and is counted in {@code threadsEnded} (the JVM starts and stops compiler threads as it likes).
 */
record ProcessCounters(long cpuNanos, long switches, int threadsEnded) {
  /** Every thread of {@code pid}: id to {cpu ns, switches}. */
  static Map<Long, long[]> threadsOf(long pid) {
    Map<Long, long[]> threads = new HashMap<>();
    try (DirectoryStream<Path> tasks =
        Files.newDirectoryStream(Path.of("/proc", "" + pid, "task"))) {
      for (Path task : tasks) {
        try {
          String schedstat = Files.readString(task.resolve("schedstat")).trim();
          int space = schedstat.indexOf(' ');
          long cpu = Long.parseLong(space < 0 ? schedstat : schedstat.substring(0, space));
          long switches = 0;
          for (String line : Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches")
                || line.startsWith("nonvoluntary_ctxt_switches")) {
              switches += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
          }
          threads.put(Long.parseLong(task.getFileName().toString()), new long[] {cpu, switches});
        } catch (IOException | RuntimeException e) {
          // the thread ended while being read: as if it had ended just before
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/" + pid + ": " + e.getMessage(), e);
    }
    return threads;
  }

  /** What the threads did between two readings of {@link #threadsOf}. */
  static ProcessCounters between(Map<Long, long[]> before, Map<Long, long[]> after) {
    long cpu = 0;
    long switches = 0;
    for (Map.Entry<Long, long[]> t : after.entrySet()) {
      long[] start = before.getOrDefault(t.getKey(), new long[2]);
      cpu += t.getValue()[0] - start[0];
      switches += t.getValue()[1] - start[1];
    }
    int ended = 0;
    for (Long tid : before.keySet()) {
      if (!after.containsKey(tid)) {
        ended++;
      }
    }
    return new ProcessCounters(cpu, switches, ended);
  }
}
