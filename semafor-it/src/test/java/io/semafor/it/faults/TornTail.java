package io.semafor.it.faults;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Stream;

/**
 * What a power cut leaves in a Ratis log while a record was being appended: part of a record, past
 * the last whole one, in the segment being written. kill -9 does not leave that (the kernel still
 * writes out what the process wrote), so the harness writes it itself, with the node down.
 */
public final class TornTail {
  private TornTail() {}

  /** Ratis's segment header ({@code SegmentedRaftLogFormat}): the records follow it. */
  private static final byte[] SEGMENT_HEADER = "RaftLog1".getBytes(StandardCharsets.US_ASCII);

  /**
   * Writes {@code 1..maxBytes} random bytes where the whole records of the newest open segment
   * under {@code dataDir} end: a record that never became whole. Returns the segment, or empty if
   * there is no open segment, or none with a whole header yet (a segment created just before the
   * kill: no record was appended to it, so there is none to tear).
   */
  public static Optional<Path> tear(Path dataDir, Random random, int maxBytes) throws IOException {
    Optional<Path> open = openSegment(dataDir);
    if (open.isEmpty()) {
      return open;
    }
    OptionalLong end = endOfRecords(open.get());
    if (end.isEmpty()) {
      return Optional.empty();
    }
    byte[] torn = new byte[1 + random.nextInt(maxBytes)];
    random.nextBytes(torn);
    torn[0] |= 1; // a record's length is never 0 (0 marks the end of the records)
    try (FileChannel ch = FileChannel.open(open.get(), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(torn), end.getAsLong());
    }
    return open;
  }

  /** The newest segment still being written ({@code log_inprogress_N}), if any. */
  public static Optional<Path> openSegment(Path dataDir) throws IOException {
    try (Stream<Path> all = Files.walk(dataDir)) {
      return all.filter(p -> p.getFileName().toString().startsWith("log_inprogress_"))
          .max(Comparator.comparingLong(TornTail::startIndex));
    }
  }

  private static long startIndex(Path segment) {
    String name = segment.getFileName().toString();
    return Long.parseLong(name.substring("log_inprogress_".length()));
  }

  /**
   * Zeroes the last {@code count} whole records of the newest open segment under {@code dataDir}
   * (zeros are where Ratis's records end): the entries a machine crash takes from a node that
   * acknowledged them before they reached its disk ({@code REPLICATED} durability). Returns how
   * many were dropped (fewer if the segment holds fewer).
   */
  public static int loseLastRecords(Path dataDir, int count) throws IOException {
    Optional<Path> open = openSegment(dataDir);
    if (open.isEmpty()) {
      return 0;
    }
    List<Long> starts = recordStarts(open.get());
    if (starts.size() < 2) {
      return 0;
    }
    int dropped = Math.min(count, starts.size() - 1);
    long from = starts.get(starts.size() - 1 - dropped);
    long to = starts.get(starts.size() - 1);
    try (FileChannel ch = FileChannel.open(open.get(), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate((int) (to - from)), from);
    }
    return dropped;
  }

  /**
   * Where the whole records of a segment end. Each record is a varint length, the entry, and a
   * 4-byte checksum; Ratis preallocates segments with zeros, so a length of 0 ends the records.
   * Empty if the segment does not start with a whole header (found by a campaign: a segment
   * created, and the node killed, before its header was written).
   */
  static OptionalLong endOfRecords(Path segment) throws IOException {
    List<Long> starts = recordStarts(segment);
    return starts.isEmpty() ? OptionalLong.empty() : OptionalLong.of(starts.get(starts.size() - 1));
  }

  /**
   * Where each whole record of a segment starts, then where they end; empty if the segment does not
   * start with a whole header.
   */
  private static List<Long> recordStarts(Path segment) throws IOException {
    byte[] all = Files.readAllBytes(segment);
    int header = SEGMENT_HEADER.length;
    if (all.length < header || !Arrays.equals(all, 0, header, SEGMENT_HEADER, 0, header)) {
      return List.of();
    }
    List<Long> starts = new ArrayList<>();
    int at = header;
    while (at < all.length) {
      com.google.protobuf.CodedInputStream in =
          com.google.protobuf.CodedInputStream.newInstance(all, at, all.length - at);
      int length = in.readRawVarint32();
      int next = at + in.getTotalBytesRead() + length + 4;
      if (length == 0 || next > all.length) {
        break; // the end marker, or a record cut short: they end here
      }
      starts.add((long) at);
      at = next;
    }
    starts.add((long) at);
    return starts;
  }
}
