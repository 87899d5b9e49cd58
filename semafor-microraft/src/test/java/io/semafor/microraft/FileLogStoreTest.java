package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.persistence.RestoredRaftState;
import io.semafor.replication.DataDamagedException;
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
  private static final MemberEndpoint N1 = new MemberEndpoint("n1", "127.0.0.1", 7001, 7101);
  private static final MemberEndpoint N2 = new MemberEndpoint("n2", "127.0.0.1", 7002, 7102);
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
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 5, 1)); // not forced: a crash may cut the last one
    }
    Path segment = onlySegment();
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(endOfRecords(Files.readAllBytes(segment)) - 3);
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
    bytes[endOfRecords(bytes) - 1] ^= 0x40; // the last entry's operation
    Files.write(segment, bytes);

    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aRecordDamagedBeforeWhatASyncMadeDurableRefusesToOpenRatherThanDropWhatFollows()
      throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, true)) {
      start(store);
      store.persistLogEntries(entries(1, 5, 1));
      store.flush();
    }
    Path segment = onlySegment();
    byte[] bytes = Files.readAllBytes(segment);
    // entry 2's record: type ENTRY, index 2, term 1, ...; its last byte is its operation
    int at = indexOf(bytes, new byte[] {4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1});
    bytes[at + 13 + 1 + 4] ^= 0x40;
    Files.write(segment, bytes);

    assertThatThrownBy(this::reopen)
        .isInstanceOf(DataDamagedException.class)
        .hasMessageContaining("is damaged")
        .hasMessageContaining("cluster remove");
  }

  @Test
  void aRecordWhoseLengthIsDamagedRefusesToOpenRatherThanDropWhatFollows() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, true)) {
      start(store);
      store.persistLogEntries(entries(1, 5, 1));
      store.flush();
    }
    Path segment = onlySegment();
    byte[] bytes = Files.readAllBytes(segment);
    int at = indexOf(bytes, new byte[] {4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1});
    bytes[at - 8] ^= 0x7f; // the high byte of entry 2's record length

    assertThatThrownBy(() -> reopenWith(segment, bytes)).isInstanceOf(DataDamagedException.class);
  }

  @Test
  void recordsMissingAfterTheLastSyncAreACrashsDoingNotDamage() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store); // the term and vote are forced; the entries are not
      store.persistLogEntries(entries(1, 5, 1));
    }
    Path segment = onlySegment();
    byte[] bytes = Files.readAllBytes(segment);
    // a page the system never wrote back before a power loss, while later ones reached the disk
    int at = indexOf(bytes, new byte[] {4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1}) - 8;
    java.util.Arrays.fill(bytes, at, at + 30, (byte) 0);
    Files.write(segment, bytes);

    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L);
  }

  @Test
  void aDamagedBaseRefusesToOpenRatherThanFallBackToAnOlderLog() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      store.persistLogEntries(entries(1, 3, 1));
    }
    // opened again: the newest segment's base now holds the endpoint, members and term
    reopen();
    Path segment = onlySegment();
    byte[] bytes = Files.readAllBytes(segment);
    bytes[8 + 3] ^= 0x01; // inside the first record of the base: the member's endpoint

    assertThatThrownBy(() -> reopenWith(segment, bytes)).isInstanceOf(DataDamagedException.class);
  }

  @Test
  void aSegmentIsWrittenAheadWithZerosThatAReaderTakesForTheEnd() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, true)) {
      start(store);
      store.persistLogEntries(entries(1, 3, 1));
      store.flush();
    }
    byte[] bytes = Files.readAllBytes(onlySegment());

    assertThat(bytes.length).isGreaterThanOrEqualTo(FileLogStore.PREALLOCATE_BYTES);
    assertThat(java.util.Arrays.copyOfRange(bytes, endOfRecords(bytes), bytes.length))
        .containsOnly((byte) 0);
    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L, 2L, 3L);
  }

  @Test
  void recordsPastTheZerosWrittenAheadAreReadBack() throws IOException {
    byte[] big = new byte[1 << 20];
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      start(store);
      for (int i = 1; i <= 6; i++) { // 6 MiB of entries: past the 4 MiB written ahead
        store.persistLogEntries(
            List.of(
                PeerCodec.MODEL
                    .createLogEntryBuilder()
                    .setIndex(i)
                    .setTerm(1)
                    .setOperation(big)
                    .build()));
      }
    }

    assertThat(indexes(reopen().orElseThrow())).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
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

  /** Where the records end: the first record length of zero (the zeros written ahead). */
  private static int endOfRecords(byte[] all) {
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(all);
    while (in.remaining() >= 8) {
      int length = in.getInt(in.position());
      if (length == 0) {
        break;
      }
      in.position(in.position() + 8 + length);
    }
    return in.position();
  }

  private static int indexOf(byte[] all, byte[] part) {
    for (int i = 0; i + part.length <= all.length; i++) {
      if (java.util.Arrays.equals(all, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    throw new AssertionError("not found");
  }

  private java.util.Optional<RestoredRaftState> reopen() throws IOException {
    try (FileLogStore store = FileLogStore.open(dir, false)) {
      return store.restored();
    }
  }

  private java.util.Optional<RestoredRaftState> reopenWith(Path segment, byte[] bytes)
      throws IOException {
    Files.write(segment, bytes);
    return reopen();
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
