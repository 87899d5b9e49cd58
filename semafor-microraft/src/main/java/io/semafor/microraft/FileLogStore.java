package io.semafor.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.log.SnapshotEntry;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import io.microraft.persistence.RestoredRaftState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.semafor.replication.DataDamagedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MicroRaft member's log on disk: segment files of checksummed records, one written at a time.
 *
 * <p>Each segment starts with a <em>base</em> — the member's endpoint, its initial members, its
 * term and vote, its latest whole snapshot and the entries after it — closed by a marker; then the
 * changes MicroRaft asks for, appended in order. When MicroRaft compacts its log after a snapshot
 * ({@link #truncateLogEntriesUntil}), and when the store opens, a new segment is written with the
 * state as it stands, forced, and the older segments are deleted: the files never hold more than
 * the log MicroRaft keeps.
 *
 * <p>Restoring reads the newest segment whose base is whole, up to its first record that is cut
 * short or fails its checksum (what a crash in the middle of a write leaves): that record and what
 * follows are dropped, which loses only writes that were never acknowledged (a forced write is
 * whole). After each sync the store records how far the file is durable ({@link #SYNCED}); a record
 * that is not whole before such a position was not cut off by a crash but damaged, and the store
 * then refuses to open ({@link DataDamagedException}) rather than drop what follows, votes
 * included. A record is {@code length, CRC32C, type, payload}.
 *
 * <p>Durability: the term and vote, the endpoint and the members are forced at once, always (a
 * member that forgot its vote could vote twice in a term). Entries and snapshot chunks are written
 * to the file at once (they survive the process) and forced on {@link #flush} only with {@code
 * forceEntries} (fsync durability: they then survive the machine).
 *
 * <p>Called on the member's node thread only; not thread-safe.
 */
final class FileLogStore implements RaftStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FileLogStore.class);

  private static final String PREFIX = "log-";
  private static final String SUFFIX = ".seg";

  /**
   * Zeros written ahead of the records, so that appending overwrites blocks the file already has: a
   * sync then writes the data alone, not the file's new size with it (on this machine's ext4 a
   * synced 512-byte append took 205 µs, an overwrite 124 µs). A reader stops at the first zero
   * length, which no record has.
   */
  static final int PREALLOCATE_BYTES = 4 << 20;

  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 << 10);

  /** A record larger than this is taken for a damaged length. */
  private static final int MAX_RECORD_BYTES = PeerTransport.MAX_FRAME_BYTES;

  private static final byte ENDPOINT = 1;
  private static final byte MEMBERS = 2;
  private static final byte TERM = 3;
  private static final byte ENTRY = 4;
  private static final byte TRUNCATE_FROM = 5;
  private static final byte TRUNCATE_UNTIL = 6;
  private static final byte CHUNK = 7;
  private static final byte DELETE_CHUNKS = 8;
  private static final byte BASE_DONE = 9;

  /**
   * Written after each sync, with the position the sync made durable: a record of it on disk proves
   * that everything before that position was once whole on disk. So a record that is not whole
   * before such a position is damage, and one after every such position may be a write a crash cut
   * off (or, with entries not forced, pages the system had not written back yet).
   */
  private static final byte SYNCED = 10;

  /** A {@link #SYNCED} record's length: its type and the position. */
  private static final int SYNCED_LENGTH = 1 + 8;

  private final Path dir;
  private final boolean forceEntries;

  /** Records built and not yet written: each call MicroRaft makes is written with one write. */
  private final ByteBuf record = Unpooled.buffer(1 << 16);

  /** Where the record being built starts in {@link #record}. */
  private int recordStart;

  private final CRC32C crc = new CRC32C();
  private final SyncTimes syncs = new SyncTimes();

  /** What the segments hold, kept to write the next base. */
  private final State state;

  private FileChannel channel;
  private long segment;

  /** Where the zeros written ahead of the records end in the open segment. */
  private long allocated;

  private boolean dirty;

  /** Told once when a write, a sync or a compaction fails: the member must stop. */
  private volatile Consumer<Exception> onFailure = e -> {};

  private boolean failed;

  /** The state as the files hold it: what a base is written from and a restore returns. */
  private static final class State {
    @Nullable RaftEndpointPersistentState endpoint;
    @Nullable RaftGroupMembersView members;
    @Nullable RaftTermPersistentState term;
    final ArrayDeque<LogEntry> entries = new ArrayDeque<>();
    final TreeMap<Long, TreeMap<Integer, SnapshotChunk>> chunks = new TreeMap<>();

    /** The newest snapshot whose every chunk is here, or null. */
    @Nullable List<SnapshotChunk> latestSnapshot() {
      for (Map.Entry<Long, TreeMap<Integer, SnapshotChunk>> e : chunks.descendingMap().entrySet()) {
        TreeMap<Integer, SnapshotChunk> set = e.getValue();
        if (!set.isEmpty() && set.size() == set.firstEntry().getValue().getSnapshotChunkCount()) {
          return new ArrayList<>(set.values());
        }
      }
      return null;
    }

    void truncateFrom(long index) {
      while (!entries.isEmpty() && entries.peekLast().getIndex() >= index) {
        entries.pollLast();
      }
    }

    void truncateUntil(long index) {
      while (!entries.isEmpty() && entries.peekFirst().getIndex() <= index) {
        entries.pollFirst();
      }
      // the chunks of older snapshots are of no more use once a newer one is whole
      List<SnapshotChunk> latest = latestSnapshot();
      if (latest != null) {
        chunks.headMap(latest.get(0).getIndex()).clear();
      }
    }

    void append(LogEntry e) {
      truncateFrom(e.getIndex());
      entries.addLast(e);
    }

    void chunk(SnapshotChunk c) {
      chunks.computeIfAbsent(c.getIndex(), i -> new TreeMap<>()).put(c.getSnapshotChunkIndex(), c);
    }
  }

  private FileLogStore(Path dir, boolean forceEntries, State state, long segment)
      throws IOException {
    this.dir = dir;
    this.forceEntries = forceEntries;
    this.state = state;
    this.segment = segment;
    this.channel = writeSegment(segment + 1);
    deleteOlderThan(this.segment);
  }

  /**
   * Opens the store in {@code dir}, reading what a previous run left there.
   *
   * @throws IOException if the directory cannot be read or written, or it holds segments none of
   *     whose bases is whole
   */
  static FileLogStore open(Path dir, boolean forceEntries) throws IOException {
    Files.createDirectories(dir);
    List<Path> segments = segments(dir);
    State state = new State();
    long newest = 0;
    if (!segments.isEmpty()) {
      newest = number(segments.get(segments.size() - 1));
      boolean read = false;
      for (int i = segments.size() - 1; i >= 0 && !read; i--) {
        read = replay(segments.get(i), state);
      }
      if (!read) {
        throw new IOException(
            "the MicroRaft log in " + dir + " has " + segments.size() + " segments, none whole");
      }
    }
    return new FileLogStore(dir, forceEntries, state, newest);
  }

  /**
   * What the files held when the store opened, for MicroRaft to restore the member from; empty if
   * this member never started here.
   */
  Optional<RestoredRaftState> restored() {
    RaftEndpointPersistentState endpoint = state.endpoint;
    RaftGroupMembersView members = state.members;
    if (endpoint == null || members == null) {
      return Optional.empty();
    }
    RaftTermPersistentState term = state.term;
    if (term == null) {
      term = PeerCodec.MODEL.createRaftTermPersistentStateBuilder().setTerm(0).build();
    }
    List<SnapshotChunk> chunks = state.latestSnapshot();
    SnapshotEntry snapshot = null;
    if (chunks != null) {
      SnapshotChunk first = chunks.get(0);
      snapshot =
          PeerCodec.MODEL
              .createSnapshotEntryBuilder()
              .setIndex(first.getIndex())
              .setTerm(first.getTerm())
              .setSnapshotChunks(chunks)
              .setGroupMembersView(first.getGroupMembersView())
              .build();
    }
    long after = snapshot == null ? 0 : snapshot.getIndex();
    List<LogEntry> entries = new ArrayList<>();
    for (LogEntry e : state.entries) {
      if (e.getIndex() > after) {
        entries.add(e);
      }
    }
    return Optional.of(new RestoredRaftState(endpoint, members, term, snapshot, entries));
  }

  /**
   * Whom to tell, once, that the log could not be written: after a failed sync nothing says what
   * reached the disk, so the member must stop rather than go on with a log it cannot trust (as with
   * Ratis, decision 0032). MicroRaft itself only logs the exception of a failed write.
   */
  void onFailure(Consumer<Exception> listener) {
    this.onFailure = listener;
  }

  private void failed(Exception e) {
    if (!failed) {
      failed = true;
      onFailure.accept(e);
    }
  }

  // ------------------------------------------------------------------ RaftStore

  @Override
  public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState endpoint)
      throws IOException {
    try {
      state.endpoint = endpoint;
      writeEndpoint(endpoint, channel);
      force();
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void persistAndFlushInitialGroupMembers(RaftGroupMembersView members) throws IOException {
    try {
      state.members = members;
      writeMembers(members, channel);
      force();
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void persistAndFlushTerm(RaftTermPersistentState term) throws IOException {
    try {
      state.term = term;
      writeTerm(term, channel);
      force();
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void persistLogEntries(List<LogEntry> entries) throws IOException {
    try {
      for (LogEntry e : entries) {
        state.append(e);
        writeEntry(e, channel);
      }
      writeOut(channel);
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void persistSnapshotChunk(SnapshotChunk chunk) throws IOException {
    try {
      state.chunk(chunk);
      writeChunk(chunk, channel);
      writeOut(channel);
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void truncateLogEntriesFrom(long index) throws IOException {
    try {
      state.truncateFrom(index);
      begin(TRUNCATE_FROM);
      record.writeLong(index);
      end(channel);
      writeOut(channel);
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  /** MicroRaft compacts after a snapshot: the store starts a new segment and drops the older. */
  @Override
  public void truncateLogEntriesUntil(long index) throws IOException {
    try {
      state.truncateUntil(index);
      begin(TRUNCATE_UNTIL);
      record.writeLong(index);
      end(channel);
      writeOut(channel);
      FileChannel old = channel;
      channel = writeSegment(segment + 1);
      old.close();
      deleteOlderThan(segment);
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
    afterCompaction.run();
  }

  /** Told after each compaction: the last step of a snapshot on the member's thread. */
  private Runnable afterCompaction = () -> {};

  /** Runs {@code then} after each compaction, on the member's thread. */
  void afterCompaction(Runnable then) {
    this.afterCompaction = then;
  }

  @Override
  public void deleteSnapshotChunks(long index, int count) throws IOException {
    try {
      state.chunks.remove(index);
      begin(DELETE_CHUNKS);
      record.writeLong(index);
      record.writeInt(count);
      end(channel);
      writeOut(channel);
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void flush() throws IOException {
    try {
      writeOut(channel);
      if (forceEntries && dirty) {
        force(); // timed, and followed by its SYNCED record
      }
      dirty = false;
    } catch (IOException | RuntimeException e) {
      failed(e);
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      writeOut(channel); // the last SYNCED record, so that a reader can tell damage from a crash
    } finally {
      channel.close();
    }
  }

  // ------------------------------------------------------------------ writing

  /**
   * Writes segment {@code number} with the state as it stands, forces it, and deletes every older
   * segment; returns it open for appending.
   */
  private FileChannel writeSegment(long number) throws IOException {
    Path path = dir.resolve(PREFIX + String.format("%016d", number) + SUFFIX);
    FileChannel next =
        FileChannel.open(
            path,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
    try {
      RaftEndpointPersistentState endpoint = state.endpoint;
      if (endpoint != null) {
        writeEndpoint(endpoint, next);
      }
      RaftGroupMembersView members = state.members;
      if (members != null) {
        writeMembers(members, next);
      }
      RaftTermPersistentState term = state.term;
      if (term != null) {
        writeTerm(term, next);
      }
      List<SnapshotChunk> snapshot = state.latestSnapshot();
      if (snapshot != null) {
        for (SnapshotChunk c : snapshot) {
          writeChunk(c, next);
        }
      }
      for (LogEntry e : state.entries) {
        writeEntry(e, next);
      }
      begin(BASE_DONE);
      end(next);
      writeOut(next);
      allocated = zeroAhead(next, next.position());
      next.force(true);
      synced(next.position());
    } catch (IOException | RuntimeException e) {
      record.clear();
      next.close();
      Files.deleteIfExists(path);
      throw e;
    }
    segment = number;
    syncDirectory();
    return next;
  }

  /** Deletes every segment older than {@code number}, once a newer one is forced. */
  private void deleteOlderThan(long number) throws IOException {
    for (Path old : segments(dir)) {
      if (number(old) < number) {
        Files.deleteIfExists(old);
      }
    }
  }

  private void writeEndpoint(RaftEndpointPersistentState endpoint, FileChannel to)
      throws IOException {
    begin(ENDPOINT);
    PeerCodec.endpoint(record, endpoint.getLocalEndpoint());
    record.writeBoolean(endpoint.isVoting());
    end(to);
  }

  private void writeMembers(RaftGroupMembersView members, FileChannel to) throws IOException {
    begin(MEMBERS);
    PeerCodec.membersView(record, members);
    end(to);
  }

  private void writeEntry(LogEntry e, FileChannel to) throws IOException {
    begin(ENTRY);
    PeerCodec.entry(record, e);
    end(to);
  }

  private void writeChunk(SnapshotChunk c, FileChannel to) throws IOException {
    begin(CHUNK);
    PeerCodec.chunk(record, c);
    end(to);
  }

  private void writeTerm(RaftTermPersistentState term, FileChannel to) throws IOException {
    begin(TERM);
    record.writeInt(term.getTerm());
    RaftEndpoint voted = term.getVotedFor();
    record.writeBoolean(voted != null);
    if (voted != null) {
      PeerCodec.endpoint(record, voted);
    }
    end(to);
  }

  /** Starts a record of {@code type}: its length and checksum are filled in by {@link #end}. */
  private void begin(byte type) {
    recordStart = record.writerIndex();
    record.writeInt(0);
    record.writeInt(0);
    record.writeByte(type);
  }

  /**
   * Fills in the record's length and checksum; writes what is built to {@code to} once it passes 1
   * MiB (a base, a large batch), else leaves it for {@link #writeOut}.
   */
  private void end(FileChannel to) throws IOException {
    int body = recordStart + 8;
    int length = record.writerIndex() - body;
    crc.reset();
    crc.update(record.nioBuffer(body, length));
    record.setInt(recordStart, length);
    record.setInt(recordStart + 4, (int) crc.getValue());
    if (record.readableBytes() > 1 << 20) {
      writeOut(to);
    }
  }

  /**
   * Writes {@link #PREALLOCATE_BYTES} of zeros from {@code from} on, past the records, leaving the
   * channel's position where it was; returns where they end.
   */
  private static long zeroAhead(FileChannel to, long from) throws IOException {
    long at = from;
    long end = from + PREALLOCATE_BYTES;
    while (at < end) {
      ByteBuffer zeros = ZEROS.duplicate();
      zeros.limit((int) Math.min(zeros.capacity(), end - at));
      at += to.write(zeros, at);
    }
    return end;
  }

  /** Writes the records built so far to {@code to}. */
  private void writeOut(FileChannel to) throws IOException {
    if (!record.isReadable()) {
      return;
    }
    if (to == channel && to.position() + record.readableBytes() > allocated) {
      // synced with the records that follow: one size change in the file for 4 MiB of records
      allocated = zeroAhead(to, Math.max(allocated, to.position() + record.readableBytes()));
    }
    ByteBuffer bytes = record.nioBuffer();
    while (bytes.hasRemaining()) {
      to.write(bytes);
    }
    record.clear();
    dirty = true;
  }

  private void force() throws IOException {
    writeOut(channel);
    long start = System.nanoTime();
    channel.force(false);
    syncs.record(System.nanoTime() - start);
    dirty = false;
    synced(channel.position());
  }

  /**
   * Queues the {@link #SYNCED} record saying {@code position} is durable; it reaches the file with
   * the next write (no write of its own, no sync of its own).
   */
  private void synced(long position) {
    recordStart = record.writerIndex();
    record.writeInt(0);
    record.writeInt(0);
    record.writeByte(SYNCED);
    record.writeLong(position);
    int body = recordStart + 8;
    crc.reset();
    crc.update(record.nioBuffer(body, SYNCED_LENGTH));
    record.setInt(recordStart, SYNCED_LENGTH);
    record.setInt(recordStart + 4, (int) crc.getValue());
  }

  /** The syncs of the log to disk so far and how long they took. */
  SyncTimes syncs() {
    return syncs;
  }

  private void syncDirectory() {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      log.debug("cannot sync directory {}: {}", dir, e.getMessage());
    }
  }

  // ------------------------------------------------------------------ reading

  /**
   * Replays segment {@code path} into {@code state} (cleared first); returns whether its base was
   * whole. Stops at the first record cut short or failing its checksum.
   */
  private static boolean replay(Path path, State state) throws IOException {
    State read = new State();
    boolean based = false;
    byte[] all = Files.readAllBytes(path);
    ByteBuf in = Unpooled.wrappedBuffer(all);
    CRC32C check = new CRC32C();
    while (in.readableBytes() >= 9) {
      int start = in.readerIndex();
      int length = in.readInt();
      int sum = in.readInt();
      boolean whole = length >= 1 && length <= MAX_RECORD_BYTES && length <= in.readableBytes();
      if (whole) {
        check.reset();
        check.update(all, in.readerIndex(), length);
        whole = (int) check.getValue() == sum;
      }
      if (!whole) {
        long durable = durableFrom(all, start + 1, check);
        if (durable > start) {
          // a sync made this part of the file durable once: not a write a crash cut off, damage
          throw new DataDamagedException(
              "the MicroRaft log "
                  + path
                  + " is damaged: the record at byte "
                  + start
                  + " is not whole, though a sync made the file durable up to byte "
                  + durable
                  + ". This node will not start from it: its log and votes cannot be trusted."
                  + " Remove the member (semafor cluster remove ID), empty its data directory and"
                  + " add it back (docs/operations.md#a-node-says-its-snapshot-is-corrupt)");
        }
        in.readerIndex(start);
        break;
      }
      ByteBuf body = in.readSlice(length);
      try {
        apply(body, read);
      } catch (RuntimeException e) {
        throw new IOException("record at byte " + start + " of " + path + " does not read", e);
      }
      if (body.getByte(0) == BASE_DONE) {
        based = true;
      }
    }
    if (in.readableBytes() > 0 && !zerosFrom(all, in.readerIndex())) {
      log.warn(
          "{}: the last {} bytes are cut short or fail their checksum (a write cut off by a crash);"
              + " dropped",
          path,
          in.readableBytes());
    }
    if (!based) {
      log.warn("{}: its base is not whole; reading an older segment", path);
      return false;
    }
    state.endpoint = read.endpoint;
    state.members = read.members;
    state.term = read.term;
    state.entries.clear();
    state.entries.addAll(read.entries);
    state.chunks.clear();
    state.chunks.putAll(read.chunks);
    return true;
  }

  /** Whether every byte from {@code from} on is zero: the space written ahead of the records. */
  private static boolean zerosFrom(byte[] all, int from) {
    for (int i = from; i < all.length; i++) {
      if (all[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The furthest position a whole {@link #SYNCED} record from byte {@code from} on says a sync made
   * durable, or -1 if there is none.
   */
  private static long durableFrom(byte[] all, int from, CRC32C check) {
    long durable = -1;
    for (int at = from; at + 8 + SYNCED_LENGTH <= all.length; at++) {
      if (all[at + 8] == SYNCED
          && ByteBuffer.wrap(all, at, 4).getInt() == SYNCED_LENGTH
          && wholeRecordAt(all, at, check)) {
        durable = Math.max(durable, ByteBuffer.wrap(all, at + 9, 8).getLong());
      }
    }
    return durable;
  }

  /** Whether a record with a good length and checksum starts at byte {@code at} of {@code all}. */
  private static boolean wholeRecordAt(byte[] all, int at, CRC32C check) {
    if (at < 0 || at + 8 > all.length) {
      return false;
    }
    ByteBuffer header = ByteBuffer.wrap(all, at, 8);
    int length = header.getInt();
    int sum = header.getInt();
    if (length < 1 || length > MAX_RECORD_BYTES || length > all.length - at - 8) {
      return false;
    }
    check.reset();
    check.update(all, at + 8, length);
    return (int) check.getValue() == sum;
  }

  private static void apply(ByteBuf body, State state) {
    byte type = body.readByte();
    switch (type) {
      case ENDPOINT ->
          state.endpoint =
              PeerCodec.MODEL
                  .createRaftEndpointPersistentStateBuilder()
                  .setLocalEndpoint(PeerCodec.endpoint(body))
                  .setVoting(body.readBoolean())
                  .build();
      case MEMBERS -> state.members = PeerCodec.membersView(body);
      case TERM -> {
        int term = body.readInt();
        RaftEndpoint voted = body.readBoolean() ? PeerCodec.endpoint(body) : null;
        state.term =
            PeerCodec.MODEL
                .createRaftTermPersistentStateBuilder()
                .setTerm(term)
                .setVotedFor(voted)
                .build();
      }
      case ENTRY -> state.append(PeerCodec.entry(body));
      case TRUNCATE_FROM -> state.truncateFrom(body.readLong());
      case TRUNCATE_UNTIL -> state.truncateUntil(body.readLong());
      case CHUNK -> state.chunk(PeerCodec.chunk(body));
      case DELETE_CHUNKS -> state.chunks.remove(body.readLong());
      case BASE_DONE, SYNCED -> {}
      default -> throw new IllegalArgumentException("unknown record type " + type);
    }
  }

  private static List<Path> segments(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files
          .filter(
              p -> {
                String name = p.getFileName().toString();
                return name.startsWith(PREFIX) && name.endsWith(SUFFIX);
              })
          .sorted(Comparator.comparingLong(FileLogStore::number))
          .toList();
    }
  }

  private static long number(Path segment) {
    String name = segment.getFileName().toString();
    try {
      return Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** For tests: the segments in the directory now. */
  static List<Path> segmentsIn(Path dir) throws IOException {
    return segments(dir);
  }
}
