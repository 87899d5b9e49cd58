package io.semafor.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.semafor.fuzz.MachineDriver;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;

/**
 * Fuzzes the snapshot reader ({@link SemaphoreMachine#readSnapshot}, i.e. {@link SnapshotReader})
 * with the default limits. Any bytes either restore a machine or are refused with the documented
 * {@link IOException}, never another exception, a hang or an allocation past the fuzz JVM's heap. A
 * machine that restores passes the machine's invariants ({@link MachineDriver}) and writes a
 * snapshot that reads back as the same bytes.
 *
 * <p>Seeds: {@code SnapshotReaderFuzzTestInputs/snapshot/}, small valid snapshots written by {@link
 * SnapshotWriter} of machines with semaphores, holders, leases, waiters of each kind and WaitMany
 * lists ({@code SeedWriter}); the fuzzer mutates them.
 */
class SnapshotReaderFuzzTest {
  @FuzzTest
  void snapshot(byte[] bytes) {
    SemaphoreMachine machine;
    try {
      machine =
          SemaphoreMachine.readSnapshot(
              Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes)));
    } catch (IOException e) {
      return; // the documented refusal of bytes that are not a snapshot
    }
    MachineDriver driver = new MachineDriver(machine, reply -> {});
    driver.checkInvariants("a restore");
    driver.checkSnapshotRoundTrip();
  }
}
