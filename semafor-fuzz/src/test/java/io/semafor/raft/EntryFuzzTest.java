package io.semafor.raft;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.semafor.core.Limits;
import io.semafor.fuzz.MachineDriver;
import io.semafor.replication.group.CommandCodec;
import io.semafor.replication.group.Entry;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Fuzzes the Raft log entry codec ({@link Entry}, with {@link CommandCodec} inside): any bytes
 * either decode or fail with an {@link IOException}, never another exception, a hang or an
 * allocation past the fuzz JVM's heap; whatever decodes encodes to bytes that decode to the same
 * entry; and its commands applied to a machine in order never throw and keep its invariants.
 *
 * <p>Seeds: {@code EntryFuzzTestInputs/entry/}, entries of every command, operation and query kind
 * written by {@link Entry#encode} ({@code SeedWriter}).
 */
class EntryFuzzTest {
  @FuzzTest
  void entry(byte[] bytes) {
    Entry entry;
    try {
      entry = Entry.decode(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      return; // the documented refusal of bytes that are not an entry
    }
    Entry again;
    try {
      again = Entry.decode(new ByteArrayInputStream(entry.encode()));
    } catch (IOException e) {
      throw new AssertionError("an entry that decoded does not decode once encoded: " + entry, e);
    }
    if (!again.equals(entry)) {
      throw new AssertionError("decode(encode(x)) is not x: " + entry + " became " + again);
    }
    MachineDriver driver = new MachineDriver(Limits.DEFAULT, reply -> {});
    for (Entry.Item item : entry.items()) {
      if (item instanceof Entry.Op op) {
        driver.apply(op.command());
      } else if (item instanceof Entry.Read read) {
        driver.query(read.query());
      }
    }
    driver.checkSnapshotRoundTrip();
  }
}
