package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Snapshots no machine could have written are refused with an {@link IOException}, not an unchecked
 * exception or an out-of-memory: the crashes {@code SnapshotReaderFuzzTest} found (decision 0030),
 * each written out by hand.
 */
class CorruptSnapshotTest {
  @Test
  void aTableSizeThatIsNoPowerOfTwoIsACorruptSnapshot() {
    byte[] bytes = snapshot(0, 0, new byte[0], 0);
    assertThatThrownBy(() -> restore(bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a table of 0 slots");
  }

  @Test
  void aTableFarLargerThanItsSemaphoresIsRefusedBeforeItIsAllocated() {
    byte[] bytes = snapshot(1 << 30, 0, new byte[0], 0);
    assertThatThrownBy(() -> restore(bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a table of 1073741824 slots for 0 semaphores");
  }

  @Test
  void anUnknownPolicyIsACorruptSnapshot() {
    byte[] bytes = snapshot(16, 1, semaphore(0, 0, 9), 0);
    assertThatThrownBy(() -> restore(bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("policy 9");
  }

  @Test
  void aSemaphoreWithMorePermitsThanItsCapacityIsACorruptSnapshot() {
    byte[] bytes = snapshot(16, 1, semaphore(3, 2, Policy.FIFO.number()), 0);
    assertThatThrownBy(() -> restore(bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("impossible counts");
  }

  @Test
  void aListCountPastTheEndOfTheInputFailsAtTheEndInsteadOfAllocatingIt() {
    // one session keeping one Granted reply whose slot list claims 2^31 - 1 entries, then ends
    byte[] bytes = snapshot(16, 0, new byte[0], 1);
    assertThatThrownBy(() -> restore(bytes)).isInstanceOf(IOException.class);
  }

  @Test
  void aTableLeftLargeByDeletesIsStillASnapshotThatRestores() throws IOException {
    SemaphoreMachine machine = new SemaphoreMachine();
    long revision = 0;
    machine.apply(++revision, 1, new Command.OpenSession(1_000_000_000L));
    long id = 0;
    for (int i = 0; i < 300; i++) {
      machine.apply(
          ++revision,
          1,
          new Command.Request(
              1, ++id, new Operation.Create(Name.of("s" + i), 1, SemaphoreOptions.DEFAULT)));
    }
    // deleting down to a handful shrinks the table step by step; every step must restore
    for (int i = 0; i < 298; i++) {
      machine.apply(
          ++revision, 1, new Command.Request(1, ++id, new Operation.Delete(Name.of("s" + i))));
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      machine.writeSnapshot(new DataOutputStream(bytes));
      restore(bytes.toByteArray());
    }
  }

  private static SemaphoreMachine restore(byte[] bytes) throws IOException {
    return SemaphoreMachine.readSnapshot(
        Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes)));
  }

  /** Name "a", {@code value}, {@code capacity}, policy number, no per-session limit, no slots. */
  private static byte[] semaphore(long value, long capacity, int policy) {
    return bytes(
        out -> {
          ResultCodec.writeBytes(out, "a".getBytes(StandardCharsets.UTF_8));
          out.writeLong(value);
          out.writeLong(capacity);
          out.writeByte(policy);
          out.writeInt(0);
          out.writeBoolean(false);
          out.writeLong(0);
        });
  }

  /**
   * A version 2 snapshot with a table of {@code table} slots holding {@code count} semaphores
   * written as {@code semaphores}, no leases, and {@code sessions} sessions (each keeping a reply
   * whose list count runs past the input's end, which then ends).
   */
  private static byte[] snapshot(int table, int count, byte[] semaphores, int sessions) {
    return bytes(
        out -> {
          out.writeInt(SnapshotWriter.MAGIC);
          out.writeInt(SnapshotWriter.VERSION);
          for (int i = 0; i < 6; i++) {
            out.writeLong(0);
          }
          out.writeLong(0); // the id key (version 3): none
          out.writeLong(0);
          out.writeInt(table);
          out.writeInt(count);
          out.write(semaphores);
          out.writeInt(0); // leases
          out.writeInt(sessions);
          if (sessions == 0) {
            out.writeInt(0); // waiters
            return;
          }
          out.writeLong(1); // id
          out.writeLong(1_000_000_000L); // ttl
          out.writeLong(0); // last seen
          out.writeUTF("");
          out.writeUTF("");
          out.writeLong(0); // pid
          out.writeLong(0); // opened at
          out.writeUTF(""); // owner (version 3): anonymous, no resume secret
          out.writeLong(0);
          out.writeLong(0);
          out.writeLong(1); // last request id
          out.writeInt(0); // waiting
          out.writeInt(1); // unacked
          out.writeInt(0); // holdings
          out.writeInt(0); // WaitMany lists
          out.writeInt(1); // kept replies
          out.writeLong(1);
          out.writeLong(1);
          out.writeLong(1);
          out.writeByte(9); // Granted
          out.writeLong(1);
          out.writeLong(1);
          out.writeLong(1);
          out.writeInt(Integer.MAX_VALUE); // its slots: claimed, never written
        });
  }

  private interface Writing {
    void to(DataOutputStream out) throws IOException;
  }

  private static byte[] bytes(Writing writing) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writing.to(out);
    } catch (IOException e) {
      throw new AssertionError(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }
}
