package io.semafor.bench.gate;

import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The gate's MicroRaft log: every entry is written to a file as it is persisted, as Semafor's
 * replicated durability writes Ratis's log, and forced only with {@code force} (the fsync mode). It
 * is never read back: the gate measures the write path, not recovery.
 */
final class UnforcedLogStore implements RaftStore, AutoCloseable {
  private final FileChannel log;
  private final boolean force;
  private ByteBuffer buffer = ByteBuffer.allocate(64 << 10);

  UnforcedLogStore(Path dir, boolean force) throws IOException {
    Files.createDirectories(dir);
    this.log =
        FileChannel.open(
            dir.resolve("microraft.log"),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
    this.force = force;
  }

  @Override
  public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState state) throws IOException {
    record(0, 0, 0);
    flush();
  }

  @Override
  public void persistAndFlushInitialGroupMembers(RaftGroupMembersView view) throws IOException {
    record(1, view.getLogIndex(), view.getMembers().size());
    flush();
  }

  @Override
  public void persistAndFlushTerm(RaftTermPersistentState state) throws IOException {
    record(2, state.getTerm(), 0);
    flush();
  }

  @Override
  public void persistLogEntries(List<LogEntry> entries) throws IOException {
    buffer.clear();
    for (LogEntry e : entries) {
      byte[] payload = e.getOperation() instanceof byte[] b ? b : new byte[0];
      int need = 16 + payload.length;
      if (buffer.remaining() < need) {
        write();
        if (buffer.capacity() < need) {
          buffer = ByteBuffer.allocate(need);
        }
      }
      buffer.putLong(e.getIndex()).putInt(e.getTerm()).putInt(payload.length).put(payload);
    }
    write();
  }

  @Override
  public void persistSnapshotChunk(SnapshotChunk chunk) throws IOException {
    record(3, chunk.getIndex(), chunk.getSnapshotChunkIndex());
  }

  @Override
  public void truncateLogEntriesFrom(long index) throws IOException {
    record(4, index, 0);
  }

  @Override
  public void truncateLogEntriesUntil(long index) throws IOException {
    record(5, index, 0);
  }

  @Override
  public void deleteSnapshotChunks(long index, int count) throws IOException {
    record(6, index, count);
  }

  @Override
  public void flush() throws IOException {
    if (force) {
      log.force(false);
    }
  }

  @Override
  public void close() throws IOException {
    log.close();
  }

  private void record(int kind, long a, long b) throws IOException {
    buffer.clear();
    buffer.putInt(-1 - kind).putLong(a).putLong(b);
    write();
  }

  private void write() throws IOException {
    buffer.flip();
    while (buffer.hasRemaining()) {
      log.write(buffer);
    }
    buffer.clear();
  }
}
