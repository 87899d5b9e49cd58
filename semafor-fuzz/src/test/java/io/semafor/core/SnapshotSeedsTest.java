package io.semafor.core;

import io.semafor.fuzz.MachineDriver;
import io.semafor.fuzz.SeedFiles;
import io.semafor.fuzz.Story;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes {@link SnapshotReaderFuzzTest}'s seeds: the snapshot of a machine after each step of the
 * story, so that between them they hold semaphores, holders, leases, waiters of every kind,
 * WaitMany lists and kept replies. Runs only with {@code -Dsemafor.fuzz.writeSeeds=true}.
 */
@EnabledIfSystemProperty(named = SeedFiles.PROPERTY, matches = "true")
class SnapshotSeedsTest {
  @Test
  void writeSeeds() throws IOException {
    MachineDriver driver = new MachineDriver(Limits.DEFAULT, reply -> {});
    write(driver, "00-empty");
    driver.apply(Story.OPEN);
    long id = 0;
    for (Operation op : Story.SETUP) {
      driver.apply(Story.request(++id, op));
    }
    for (Operation op : Story.OPERATIONS) {
      driver.apply(Story.request(++id, op));
      write(driver, String.format("%02d-%s", id, op.getClass().getSimpleName()));
    }
  }

  private static void write(MachineDriver driver, String name) throws IOException {
    SeedFiles.write(
        SnapshotReaderFuzzTest.class, "snapshot", name, MachineDriver.snapshot(driver.machine()));
  }
}
