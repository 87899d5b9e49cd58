package io.semafor.it.faults;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Makes a running process's {@code fsync} and {@code fdatasync} calls fail or slow down, with
 * strace's syscall fault injection attached to every thread of it ({@code -f} with {@code -p}, so
 * threads started later too). Stopping the returned strace process (SIGTERM) detaches it and the
 * calls behave again. Needs root (ptrace) and {@code strace}.
 */
public final class SyncFaults {
  private SyncFaults() {}

  /** Every sync of {@code pid} fails with EIO until the returned process is stopped. */
  public static Process failWithEio(long pid, Path log) throws IOException {
    return inject(pid, "error=EIO", log);
  }

  /** Every sync of {@code pid} first waits {@code micros} until the returned process is stopped. */
  public static Process delay(long pid, long micros, Path log) throws IOException {
    return inject(pid, "delay_enter=" + micros, log);
  }

  private static Process inject(long pid, String injection, Path log) throws IOException {
    return new ProcessBuilder(
            List.of(
                "strace",
                "-f",
                "-qq",
                "-o",
                "/dev/null",
                "-e",
                "trace=fsync,fdatasync",
                "-e",
                "inject=fsync,fdatasync:" + injection,
                "-p",
                Long.toString(pid)))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }
}
