package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.persistence.RestoredRaftState;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A member's log on disk: what was written comes back, and what a crash cut off does not. */
class FileLogStoreTest {
  private static final MemberEndpoint N1 = new MemberEndpoint("n1", "127.0.0.1", 7001);
  private static final MemberEndpoint N2 = new MemberEndpoint("n2", "127.0.0.1", 7002);
  private static final List<RaftEndpoint> BOTH = List.of(N1, N2);

  @TempDir Path dir = Path.of("set-by-junit");

  @Test
  void whatWasPersistedComesBackWhenTheStoreOpensAgain() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 10, 1));
      store.truncateLogEntriesFrom(8);
      store.persistLogEntries(entries(8, 9, 2));
      store.persistAndFlushTerm(
          PeerCodec.MODEL
              .createRaftTermPersistentStateBuilder()
              .setTerm(2)
              .setVotedFor(N2)
              .build());
    }

    RestoredRaftState restored = reopen().orElseThrow();

    assertThat(restored.getLocalEndpointPersistentState().getLocalEndpoint()).isEqualTo(N1);
    assertThat(restored.getLocalEndpointPersistentState().isVoting()).isTrue();
    assertThat(restored.getInitialGroupMembers().getMembers()).containsExactlyElementsOf(BOTH);
    assertThat(restored.getTermPersistentState().getTerm()).isEqualTo(2);
    assertThat(restored.getTermPersistentState().getVotedFor()).isEqualTo(N2);
    assertThat(restored.getSnapshotEntry()).isNull();
    assertThat(indexes(restored)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(terms(restored)).endsWith(1, 2, 2);
    assertThat((byte[]) restored.getLogEntries().get(4).getOperation()).containsExactly(5);
  }

  @Test
  void aDirectoryNoMemberStartedInRestoresNothing() throws IOException {
    FileLogStore.open(dir, false).close();

    assertThat(reopen()).isEmpty();
  }

  @Test
  void aRecordCutShortAtTheEndIsDroppedAndEverythingBeforeItRestored() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, true)) {
      start(store);
      store.persistLogEntries(entries(1, 5, 1));
      store.flush();
    }
    Path segment = onlySegment();
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(f.length() - 3);
    }

    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aRecordFailingItsChecksumEndsWhatIsRead() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 5, 1));
    }
    Path segment = onlySegment();
    byte[] bytes = Files.readAllBytes(segment);
    bytes[bytes.length - 1] ^= 0x40; // the last entry's operation
    Files.write(segment, bytes);

    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void compactingAfterASnapshotLeavesOneSegmentWithTheSnapshotAndTheEntriesAfterIt()
      throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 20, 1));
      store.persistSnapshotChunk(chunk(15, 0, 2));
      store.persistSnapshotChunk(chunk(15, 1, 2));
      store.flush();
      store.truncateLogEntriesUntil(15);
      store.persistLogEntries(entries(21, 21, 1));
    }

    assertThat(FileLogStore.segmentsIn(dir)).hasSize(1);
    RestoredRaftState restored = reopen().orElseThrow();
    assertThat(restored.getSnapshotEntry()).isNotNull();
    assertThat(restored.getSnapshotEntry().getIndex()).isEqualTo(15);
    assertThat(restored.getSnapshotEntry().getSnapshotChunkCount()).isEqualTo(2);
    assertThat(indexes(restored)).containsExactly(16L, 17L, 18L, 19L, 20L, 21L);
    assertThat(restored.getTermPersistentState().getTerm()).isEqualTo(1);
  }

  @Test
  void aSnapshotMissingAChunkIsNotRestored() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 3, 1));
      store.persistSnapshotChunk(chunk(3, 0, 2));
    }

    RestoredRaftState restored = reopen().orElseThrow();
    assertThat(restored.getSnapshotEntry()).isNull();
    assertThat(indexes(restored)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aNewerSegmentWhoseBaseWasCutOffIsPassedOverForTheOlderOne() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 3, 1));
    }
    Path older = onlySegment();
    String name = older.getFileName().toString();
    long number = Long.parseLong(name.substring(4, name.length() - 4));
    // a crash while the next base was being written: a few bytes of its first record
    Files.write(
        older.resolveSibling(String.format("log-%016d.seg", number + 1)),
        new byte[] {0, 0, 0, 40, 1, 2});

    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L, 2L, 3L);
    assertThat(FileLogStore.segmentsIn(dir)).hasSize(1);
  }

  // ------------------------------------------------------------------ helpers

  private java.util.Optional<RestoredRaftState> reopen() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      return store.restored();
    }
  }

  private Path onlySegment() throws IOException {
    List<Path> segments = FileLogStore.segmentsIn(dir);
    assertThat(segments).hasSize(1);
    return segments.get(0);
  }

  private static void start(FileLogStore store) throws IOException {
    store.persistAndFlushLocalEndpoint(
        PeerCodec.MODEL
            .createRaftEndpointPersistentStateBuilder()
            .setLocalEndpoint(N1)
            .setVoting(true)
            .build());
    store.persistAndFlushInitialGroupMembers(view(0));
    store.persistAndFlushTerm(
        PeerCodec.MODEL.createRaftTermPersistentStateBuilder().setTerm(1).setVotedFor(N1).build());
  }

  private static RaftGroupMembersView view(long index) {
    return PeerCodec.MODEL
        .createRaftGroupMembersViewBuilder()
        .setLogIndex(index)
        .setMembers(BOTH)
        .setVotingMembers(BOTH)
        .build();
  }

  private static List<LogEntry> entries(long from, long to, int term) {
    List<LogEntry> list = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      list.add(
          PeerCodec.MODEL
              .createLogEntryBuilder()
              .setIndex(i)
              .setTerm(term)
              .setOperation(new byte[] {(byte) i})
              .build());
    }
    return list;
  }

  private static SnapshotChunk chunk(long index, int chunk, int count) {
    return PeerCodec.MODEL
        .createSnapshotChunkBuilder()
        .setIndex(index)
        .setTerm(1)
        .setOperation(ByteBuffer.allocate(4).putInt(chunk).array())
        .setSnapshotChunkIndex(chunk)
        .setSnapshotChunkCount(count)
        .setGroupMembersView(view(0))
        .build();
  }

  private static List<Long> indexes(RestoredRaftState restored) {
    return restored.getLogEntries().stream().map(LogEntry::getIndex).toList();
  }

  private static List<Integer> terms(RestoredRaftState restored) {
    return restored.getLogEntries().stream().map(LogEntry::getTerm).toList();
  }
}
