package io.semafor.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.SemaphoreMachine;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The backup file's header and checksum: a good file reads back, a damaged one is refused. */
class SnapshotFileTest {

  private static byte[] file() {
    SemaphoreMachine machine = new SemaphoreMachine();
    machine.apply(1, 0, new Command.OpenSession(10_000_000_000L));
    for (int i = 0; i < 50; i++) {
      machine.apply(
          i + 2,
          i,
          new Command.Request(
              1,
              i + 1,
              List.of(),
              new Operation.Create(Name.of("s" + i), i, SemaphoreOptions.DEFAULT)));
    }
    SnapshotFile.Image image = SnapshotFile.take(machine, 3, 77, 1234);
    return Arrays.copyOf(image.bytes(), image.length());
  }

  @Test
  void aFileReadsBackWithWhatItsHeaderSays() throws Exception {
    SnapshotFile.Loaded loaded = SnapshotFile.read(file(), Limits.DEFAULT);
    assertThat(loaded.header())
        .isEqualTo(new SnapshotFile.Header(3, 77, 51, 1234, 50, 1, loaded.body().length));
    assertThat(loaded.machine().semaphoreCount()).isEqualTo(50);
    assertThat(loaded.machine().revision()).isEqualTo(51);
  }

  @Test
  void aTruncatedFileIsRefused() {
    byte[] whole = file();
    for (int length : new int[] {0, 5, 40, SnapshotFile.HEADER_BYTES, whole.length - 1}) {
      assertThatThrownBy(
              () -> SnapshotFile.read(Arrays.copyOf(whole, length), Limits.DEFAULT), "%d", length)
          .isInstanceOf(SnapshotFile.CorruptException.class)
          .hasMessageMatching("(truncated|not a Semafor snapshot file).*");
    }
  }

  @Test
  void aChangedByteAnywhereIsRefused() {
    byte[] whole = file();
    for (int at : new int[] {12, 40, SnapshotFile.HEADER_BYTES + 3, whole.length - 1}) {
      byte[] damaged = whole.clone();
      damaged[at] ^= 0x10;
      assertThatThrownBy(() -> SnapshotFile.read(damaged, Limits.DEFAULT), "%d", at)
          .isInstanceOf(SnapshotFile.CorruptException.class)
          .hasMessageMatching("(damaged|truncated|snapshot format).*");
    }
    byte[] extended = Arrays.copyOf(whole, whole.length + 1);
    assertThatThrownBy(() -> SnapshotFile.read(extended, Limits.DEFAULT))
        .hasMessageStartingWith("damaged");
  }

  @Test
  void anotherFileIsNotASnapshot() {
    byte[] text =
        "this is not a snapshot at all, just some text of more than 64 bytes..."
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> SnapshotFile.read(text, Limits.DEFAULT))
        .hasMessageContaining("not a Semafor snapshot file");
  }
}
