package io.semafor.replication.group;

import io.semafor.core.Command;
import io.semafor.core.Query;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One log entry: the commands that arrived while the previous entry was in flight, in order,
 * stamped with the leader's log time, and tagged with the node and batch number that proposed them
 * (so that node can find the connections to answer). On Ratis reads take the read-index path and
 * never enter the log; {@link Read} items (written by the earlier version, and by the MicroRaft
 * replicator, whose reads go through the log) are decoded and answered where they fall (decision
 * 0014). Shared by every replicator that runs a Raft group, and part of their logs' format.
 */
public record Entry(long logTime, String origin, long batch, List<Entry.Item> items) {
  private static final int VERSION = 1;

  /** What an entry carries: a command, a read (logs of the earlier version only), a snapshot. */
  public sealed interface Item permits Op, Read, Snapshot {}

  /** A command, applied to the machine where it falls. */
  public record Op(Command command) implements Item {}

  /**
   * A read, {@code id} being the proposing node's: queued with the commands so it goes out after
   * them, and found in logs written by the earlier version.
   */
  public record Read(long id, Query query) implements Item {}

  /**
   * A consistent snapshot asked for on the proposing node ({@code semafor snapshot save}): that
   * node serialises its state where this item falls; the others skip it. It always travels in an
   * entry of its own, so a node of an earlier version, which cannot decode the entry and skips it,
   * skips nothing else (decision 0022).
   */
  public record Snapshot(long id) implements Item {}

  /** Copies the items. */
  public Entry {
    items = List.copyOf(items);
  }

  /** This entry as the log stores it. */
  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + items.size() * 48);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeLong(logTime);
      out.writeUTF(origin);
      out.writeLong(batch);
      out.writeInt(items.size());
      for (Item item : items) {
        if (item instanceof Op op) {
          out.writeByte(0);
          CommandCodec.write(out, op.command());
        } else if (item instanceof Read r) {
          out.writeByte(1);
          out.writeLong(r.id());
          CommandCodec.writeQuery(out, r.query());
        } else if (item instanceof Snapshot snapshot) {
          out.writeByte(2);
          out.writeLong(snapshot.id());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * Reads an entry written by {@link #encode}.
   *
   * @throws IOException if the bytes are not a whole entry of this version
   */
  public static Entry decode(InputStream input) throws IOException {
    DataInputStream in = new DataInputStream(input);
    int version = in.readByte();
    if (version != VERSION) {
      throw new IOException("entry version " + version + ", this node reads " + VERSION);
    }
    long logTime = in.readLong();
    String origin = in.readUTF();
    long batch = in.readLong();
    int n = in.readInt();
    if (n < 0 || n > 1 << 24) {
      throw new IOException("corrupt entry: " + n + " items");
    }
    List<Item> items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int kind = in.readByte();
      items.add(
          switch (kind) {
            case 0 -> new Op(CommandCodec.read(in));
            case 1 -> new Read(in.readLong(), CommandCodec.readQuery(in));
            case 2 -> new Snapshot(in.readLong());
            default -> throw new IOException("unknown item kind " + kind);
          });
    }
    return new Entry(logTime, origin, batch, items);
  }
}
