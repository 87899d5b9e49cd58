package io.semafor.bench;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.SnapshotFile;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A backup file ({@code semafor snapshot save}'s format) of a state with {@code N} semaphores named
 * {@code sem-} and 12 digits, each of value 1, and how long the core takes to write that state
 * (what a replicator's snapshot costs its thread). For measuring snapshots of large states on a
 * cluster: restore the file into every node ({@code semafor snapshot restore}), start them with a
 * small snapshot interval, and load them.
 *
 * <p>Run: {@code java -Xmx8g -cp semafor-bench/target/benchmarks.jar io.semafor.bench.BigBackup
 * 1000000 big.snap}.
 */
public final class BigBackup {
  private BigBackup() {}

  public static void main(String[] args) throws IOException {
    int count = Integer.parseInt(args[0].replace("_", ""));
    Path file = Path.of(args[1]);
    SemaphoreMachine machine = new SemaphoreMachine(Limits.DEFAULT);
    long revision = 0;
    Reply opened = machine.apply(++revision, 0, new Command.OpenSession(60_000_000_000L)).reply();
    long session = ((Result.SessionOpened) opened.result()).sessionId();
    for (int i = 0; i < count; i++) {
      long id = i + 1L;
      machine.apply(
          ++revision,
          0,
          new Command.Request(
              session,
              id,
              List.of(id - 1),
              new Operation.Create(
                  Name.of(String.format(Locale.ROOT, "sem-%012d", i)),
                  1,
                  SemaphoreOptions.DEFAULT)));
    }
    machine.apply(++revision, 0, new Command.ExpireSession(session)); // the backup has no session
    long[] millis = new long[5];
    int bytes = 0;
    for (int i = 0; i < millis.length; i++) {
      long started = System.nanoTime();
      ByteArrayOutputStream out = new ByteArrayOutputStream(64 + count * 48);
      try (DataOutputStream data = new DataOutputStream(out)) {
        machine.writeSnapshot(data);
      }
      bytes = out.size();
      millis[i] = (System.nanoTime() - started) / 1_000_000;
    }
    Arrays.sort(millis);
    System.out.printf(
        Locale.ROOT,
        "%,d semaphores: the state is %,d bytes, written in %d ms (median of 5; %d-%d)%n",
        machine.semaphoreCount(),
        bytes,
        millis[2],
        millis[0],
        millis[4]);
    SnapshotFile.Image image = SnapshotFile.take(machine, -1, -1, System.currentTimeMillis());
    Files.write(file, Arrays.copyOf(image.bytes(), image.length()));
    System.out.printf(Locale.ROOT, "wrote %s (%,d bytes)%n", file, image.length());
  }
}
