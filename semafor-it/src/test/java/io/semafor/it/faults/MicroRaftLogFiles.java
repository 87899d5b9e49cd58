package io.semafor.it.faults;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The MicroRaft replicator's log files ({@code DATA_DIR/microraft/log-N.seg}, records of {@code
 * length, CRC32C, body}) damaged as a power cut or a bad disk damages them, with the node down: the
 * twin of {@link TornTail} and {@link SnapshotFiles} for Ratis's files.
 */
final class MicroRaftLogFiles {
  private MicroRaftLogFiles() {}

  /** The newest segment under {@code dataDir}, if the node ran the MicroRaft replicator there. */
  static Optional<Path> newestSegment(Path dataDir) throws IOException {
    Path dir = dataDir.resolve("microraft");
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> all = Files.list(dir)) {
      return all.filter(p -> p.getFileName().toString().matches("log-\\d+\\.seg"))
          .max(Comparator.comparing(p -> p.getFileName().toString()));
    }
  }

  /**
   * Writes the start of a record that never became whole where the newest segment's records end
   * (the first zero length: the store writes zeros ahead of its records): a length and a checksum,
   * then fewer bytes than the length says ({@code 1..maxBytes}). Returns the segment, or empty if
   * there is none.
   */
  static Optional<Path> tear(Path dataDir, Random random, int maxBytes) throws IOException {
    Optional<Path> newest = newestSegment(dataDir);
    if (newest.isEmpty()) {
      return newest;
    }
    long end = endOfRecords(newest.get());
    int written = 1 + random.nextInt(maxBytes);
    ByteBuffer torn = ByteBuffer.allocate(8 + written);
    torn.putInt(written + 1 + random.nextInt(1024)).putInt(random.nextInt());
    byte[] body = new byte[written];
    random.nextBytes(body);
    torn.put(body).flip();
    try (FileChannel ch = FileChannel.open(newest.get(), StandardOpenOption.WRITE)) {
      ch.write(torn, end);
    }
    return newest;
  }

  /** Where the segment's records end: the first record length of zero, or the file's end. */
  private static long endOfRecords(Path segment) throws IOException {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(segment));
    while (all.remaining() >= 8) {
      int length = all.getInt(all.position());
      if (length <= 0 || length > all.remaining() - 8) {
        break;
      }
      all.position(all.position() + 8 + length);
    }
    return all.position();
  }

  /**
   * Flips a byte inside the first record of the newest segment's base (the member's endpoint),
   * where the records after it stay whole: what a bad sector leaves. Returns the segment, or empty
   * if there is none.
   */
  static Optional<Path> damageBase(Path dataDir) throws IOException {
    Optional<Path> newest = newestSegment(dataDir);
    if (newest.isEmpty()) {
      return newest;
    }
    try (FileChannel ch =
        FileChannel.open(newest.get(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      long at = 8 + 2; // past the first record's length and checksum, inside its body
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
      ch.write(one, at);
    }
    return newest;
  }
}
