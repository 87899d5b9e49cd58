package io.semafor.replication;

import io.semafor.core.Limits;
import io.semafor.core.SemaphoreMachine;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A backup file of the whole state ({@code semafor snapshot save}): a fixed 64-byte header, then
 * the core's snapshot ({@link SemaphoreMachine#writeSnapshot}) as the body (decision 0022).
 *
 * <p>Header, big-endian: the magic {@code SMFRSNAP} (8 bytes); the format version (int, 1); the
 * Raft term and log index the snapshot was taken at (longs, -1 and -1 on a single node); the
 * machine's revision; the wall-clock time it was taken (epoch milliseconds); the counts of
 * semaphores and sessions (ints); the body's length in bytes (long); and a CRC-32C (int) of every
 * header byte before it followed by the body. So a file that is truncated, extended or changed
 * anywhere is refused by {@link #read}.
 *
 * <p>Stateless and thread-safe; {@link #take} must be called where the machine may be read (its
 * apply thread).
 */
public final class SnapshotFile {
  /** The first 8 bytes of every backup file. */
  static final byte[] MAGIC = "SMFRSNAP".getBytes(StandardCharsets.US_ASCII);

  /** The format version this code writes and reads. */
  public static final int FORMAT_VERSION = 1;

  /** The length of the header; the body follows it. */
  public static final int HEADER_BYTES = 64;

  /** Where the checksum sits in the header (it covers the bytes before it, then the body). */
  private static final int CHECKSUM_OFFSET = HEADER_BYTES - Integer.BYTES;

  private SnapshotFile() {}

  /**
   * What the header says.
   *
   * @param term the Raft term of the log entry the snapshot was taken at; -1 on a single node
   * @param index that entry's index; -1 on a single node
   * @param revision the revision of the last command applied before the snapshot
   * @param createdMillis when it was taken, wall clock, epoch milliseconds
   * @param semaphores how many semaphores it holds
   * @param sessions how many sessions it holds
   * @param bodyBytes the length of the core snapshot after the header
   */
  public record Header(
      long term,
      long index,
      long revision,
      long createdMillis,
      int semaphores,
      int sessions,
      long bodyBytes) {

    /** Whether it was taken on a single in-memory node (no log index). */
    public boolean singleNode() {
      return index < 0;
    }

    /** The whole file's length. */
    public long fileBytes() {
      return HEADER_BYTES + bodyBytes;
    }
  }

  /**
   * A snapshot taken, as the bytes of a whole file: {@code bytes[0, length)}, header included. The
   * array is not copied; nobody may change it.
   */
  public static final class Image {
    private final Header header;
    private final byte[] bytes;
    private final int length;

    Image(Header header, byte[] bytes, int length) {
      this.header = header;
      this.bytes = bytes;
      this.length = length;
    }

    /** What its header says. */
    public Header header() {
      return header;
    }

    /** The array holding the file in its first {@link #length} bytes; not a copy. */
    public byte[] bytes() {
      return bytes;
    }

    /** The file's length. */
    public int length() {
      return length;
    }
  }

  /** A file read and verified, with its state. */
  public static final class Loaded {
    private final Header header;
    private final SemaphoreMachine machine;
    private final byte[] body;

    Loaded(Header header, SemaphoreMachine machine, byte[] body) {
      this.header = header;
      this.machine = machine;
      this.body = body;
    }

    /** What its header says. */
    public Header header() {
      return header;
    }

    /** The state it holds, as a machine of its own (not thread-safe, as every machine). */
    public SemaphoreMachine machine() {
      return machine;
    }

    /** The core snapshot after the header, what a Raft state-machine snapshot holds; shared. */
    public byte[] body() {
      return body;
    }
  }

  /** A backup file that is not one, or is damaged; the message is one line for an operator. */
  public static final class CorruptException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptException(String message) {
      super(message);
    }
  }

  /** A byte array stream whose buffer is handed over without a copy. */
  private static final class Buffer extends ByteArrayOutputStream {
    Buffer(int size) {
      super(size);
    }

    byte[] array() {
      return buf;
    }
  }

  /**
   * Serialises {@code machine} into a backup file's bytes. Call it on the thread that applies
   * commands (or with them otherwise stopped): its cost is that of writing the whole state, about a
   * second per million semaphores, and nothing else is applied meanwhile.
   *
   * @param term the Raft term of the entry at which it is taken, -1 on a single node
   * @param index that entry's index, -1 on a single node
   * @param logTime the log time it is taken at (on a single node the replicator's time when it
   *     reaches the snapshot; in a cluster the time its entry was stamped with): the restored state
   *     starts there, so every deadline keeps the time it had left then, however long no command
   *     had come before (see {@link SemaphoreMachine#writeSnapshot(java.io.DataOutput, long)})
   * @param createdMillis the wall-clock time to record
   */
  public static Image take(
      SemaphoreMachine machine, long term, long index, long logTime, long createdMillis) {
    Buffer buffer = new Buffer(HEADER_BYTES + 64 + machine.semaphoreCount() * 48);
    try {
      buffer.write(new byte[HEADER_BYTES]);
      machine.writeSnapshot(new DataOutputStream(buffer), logTime);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    Header header =
        new Header(
            term,
            index,
            machine.revision(),
            createdMillis,
            machine.semaphoreCount(),
            machine.sessionCount(),
            buffer.size() - (long) HEADER_BYTES);
    byte[] bytes = buffer.array();
    writeHeader(header, bytes, buffer.size());
    return new Image(header, bytes, buffer.size());
  }

  /**
   * {@link #take(SemaphoreMachine, long, long, long, long)} at the log time of the machine's last
   * applied command.
   */
  public static Image take(SemaphoreMachine machine, long term, long index, long createdMillis) {
    return take(machine, term, index, machine.now(), createdMillis);
  }

  /** Writes the header into {@code bytes[0, HEADER_BYTES)}, the body being already after it. */
  private static void writeHeader(Header header, byte[] bytes, int length) {
    ByteBuffer out = ByteBuffer.wrap(bytes, 0, HEADER_BYTES);
    out.put(MAGIC)
        .putInt(FORMAT_VERSION)
        .putLong(header.term())
        .putLong(header.index())
        .putLong(header.revision())
        .putLong(header.createdMillis())
        .putInt(header.semaphores())
        .putInt(header.sessions())
        .putLong(header.bodyBytes());
    out.putInt(CHECKSUM_OFFSET, checksum(bytes, length));
  }

  private static int checksum(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, CHECKSUM_OFFSET);
    crc.update(bytes, HEADER_BYTES, length - HEADER_BYTES);
    return (int) crc.getValue();
  }

  /**
   * Reads and verifies only the header and checksum of a whole file's bytes.
   *
   * @throws CorruptException if the bytes are not a complete, intact backup file of this version
   */
  public static Header verify(byte[] bytes) throws CorruptException {
    if (bytes.length < HEADER_BYTES) {
      throw new CorruptException(
          bytes.length < MAGIC.length || !startsWithMagic(bytes)
              ? "not a Semafor snapshot file (too short, " + bytes.length + " bytes)"
              : "truncated: " + bytes.length + " bytes, shorter than the header");
    }
    if (!startsWithMagic(bytes)) {
      throw new CorruptException("not a Semafor snapshot file (no SMFRSNAP magic)");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    in.position(MAGIC.length);
    int version = in.getInt();
    if (version != FORMAT_VERSION) {
      throw new CorruptException(
          "snapshot format version " + version + "; this semafor reads " + FORMAT_VERSION);
    }
    Header header =
        new Header(
            in.getLong(),
            in.getLong(),
            in.getLong(),
            in.getLong(),
            in.getInt(),
            in.getInt(),
            in.getLong());
    if (header.fileBytes() != bytes.length) {
      throw new CorruptException(
          (bytes.length < header.fileBytes() ? "truncated: " : "damaged: ")
              + bytes.length
              + " bytes, the header says "
              + header.fileBytes());
    }
    if (in.getInt(CHECKSUM_OFFSET) != checksum(bytes, bytes.length)) {
      throw new CorruptException("damaged: the checksum does not match the contents");
    }
    return header;
  }

  private static boolean startsWithMagic(byte[] bytes) {
    return Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  /**
   * Checks that {@code dataDir} can be seeded from a snapshot: it does not exist yet, or is an
   * empty directory. A restore writes a new node's first state and never overwrites a node's own.
   * Any replicator's restore calls it before writing.
   *
   * @throws FileAlreadyExistsException if {@code dataDir} exists and is not an empty directory
   * @throws IOException if it cannot be listed
   */
  public static void requireNewDataDir(Path dataDir) throws IOException {
    if (!Files.exists(dataDir)) {
      return;
    }
    if (!Files.isDirectory(dataDir)) {
      throw new FileAlreadyExistsException(dataDir + " exists and is not a directory");
    }
    try (Stream<Path> entries = Files.list(dataDir)) {
      if (entries.findAny().isPresent()) {
        throw new FileAlreadyExistsException(
            dataDir + " is not empty: restore seeds a new node only");
      }
    }
  }

  /**
   * Reads a whole backup file, verifies it, and rebuilds its state. Blocks on the file.
   *
   * @throws CorruptException if it is not an intact backup file (the message says how)
   * @throws IOException if it cannot be read (the message names the file)
   */
  public static Loaded read(Path file, Limits limits) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(file + ": no such file");
    }
    return read(bytes, limits);
  }

  /**
   * Verifies a whole file's bytes and rebuilds its state.
   *
   * @throws CorruptException if they are not an intact backup file
   */
  public static Loaded read(byte[] bytes, Limits limits) throws CorruptException {
    Header header = verify(bytes);
    byte[] body = Arrays.copyOfRange(bytes, HEADER_BYTES, bytes.length);
    SemaphoreMachine machine;
    try {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      machine = SemaphoreMachine.readSnapshot(limits, new DataInputStream(in));
      if (in.available() != 0) {
        throw new CorruptException("damaged: " + in.available() + " bytes after the state");
      }
    } catch (CorruptException e) {
      throw e;
    } catch (EOFException e) {
      throw new CorruptException("damaged: the state ends early");
    } catch (IOException | RuntimeException e) {
      // the checksum matched, so this is a file written by a different (buggy) writer
      throw new CorruptException("damaged: the state does not decode: " + e.getMessage());
    }
    if (machine.semaphoreCount() != header.semaphores()
        || machine.sessionCount() != header.sessions()) {
      throw new CorruptException("damaged: the counts in the header do not match the state");
    }
    return new Loaded(header, machine, body);
  }
}
