package io.semafor.it.faults;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A history on disk: one JSON object per line, one {@link Op} per object, one file per client
 * process. Lines are written whole, each in a single {@code write} with no buffering in the
 * process, so a client killed with {@code kill -9} loses at most the op it was writing: the page
 * cache keeps every line written before (a machine crash is another matter; nothing is fsynced).
 */
public final class OpLog {
  // Strict on purpose: a line with a field missing is a harness bug, not a zero.
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);

  private OpLog() {}

  /**
   * Appends ops to one file, each as one line written at once. Thread-safe, but one file must have
   * one writing process: opening repairs a line cut short by the previous process, which another
   * process still writing would be hurt by.
   */
  public static final class Writer implements Closeable {
    private final FileChannel channel;

    private Writer(FileChannel channel) {
      this.channel = channel;
    }

    /**
     * Opens {@code file} for appending, creating it if need be. If its last line was cut short (a
     * killed process), that fragment is cut off first, so the next op starts a line of its own
     * instead of being glued to the fragment and lost with it.
     */
    public static Writer open(Path file) throws IOException {
      dropTruncatedLastLine(file);
      return new Writer(
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.APPEND));
    }

    /** Writes {@code op} as one line and hands it to the operating system before returning. */
    public synchronized void append(Op op) throws IOException {
      ByteBuffer line = ByteBuffer.wrap(toLine(op));
      while (line.hasRemaining()) {
        channel.write(line);
      }
    }

    /** Closes the file; the lines are already written. */
    @Override
    public synchronized void close() throws IOException {
      channel.close();
    }
  }

  /** Appends one op to {@code file} (opening and closing it: use a {@link Writer} for many). */
  public static void append(Path file, Op op) throws IOException {
    try (Writer writer = Writer.open(file)) {
      writer.append(op);
    }
  }

  /**
   * Every op in {@code files}, merged and sorted by invocation time (then client). A last line that
   * does not parse is the op a killed process was writing, and is dropped; any other line that does
   * not parse is corruption and fails the read, since silently dropping an op can turn a correct
   * history into a violation or hide one. An {@link Op#invocation} record is replaced by the
   * completed op with the same client, kind, semaphore and invocation time if there is one, and
   * kept (an op that may have happened) if there is none.
   *
   * @throws IOException if a file cannot be read, or a line other than a last one does not parse
   */
  public static List<Op> read(Path... files) throws IOException {
    List<Op> ops = new ArrayList<>();
    for (Path file : files) {
      ops.addAll(readOne(file));
    }
    ops.sort(Comparator.comparingLong(Op::invoked).thenComparingInt(Op::client));
    return withoutAnsweredInvocations(ops);
  }

  private static List<Op> readOne(Path file) throws IOException {
    // Decoded leniently: a kill can cut a multi-byte character in half.
    String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    List<Op> ops = new ArrayList<>();
    int lineNumber = 0;
    for (int start = 0; start < text.length(); ) {
      int end = text.indexOf('\n', start);
      boolean last = end < 0;
      String line = text.substring(start, last ? text.length() : end);
      start = last ? text.length() : end + 1;
      lineNumber++;
      if (line.isBlank()) {
        continue;
      }
      try {
        ops.add(JSON.readValue(line, Op.class));
      } catch (JsonProcessingException e) {
        // Only a line with no newline after it can be one a process was killed writing.
        if (!last) {
          throw new IOException(file + ":" + lineNumber + ": not an op: " + line, e);
        }
      }
    }
    return ops;
  }

  /** The ops, with each pending invocation record dropped if its completion was recorded too. */
  private static List<Op> withoutAnsweredInvocations(List<Op> sortedByInvoked) {
    List<Op> kept = new ArrayList<>(sortedByInvoked.size());
    for (int i = 0; i < sortedByInvoked.size(); i++) {
      Op op = sortedByInvoked.get(i);
      if (op.pending() && answered(sortedByInvoked, i)) {
        continue;
      }
      kept.add(op);
    }
    return kept;
  }

  /** Whether an op invoked at the same time as the pending op at {@code i} completes it. */
  private static boolean answered(List<Op> sortedByInvoked, int i) {
    Op pending = sortedByInvoked.get(i);
    for (int j = i - 1; j >= 0 && sortedByInvoked.get(j).invoked() == pending.invoked(); j--) {
      if (!sortedByInvoked.get(j).pending() && sortedByInvoked.get(j).sameInvocation(pending)) {
        return true;
      }
    }
    for (int j = i + 1;
        j < sortedByInvoked.size() && sortedByInvoked.get(j).invoked() == pending.invoked();
        j++) {
      if (!sortedByInvoked.get(j).pending() && sortedByInvoked.get(j).sameInvocation(pending)) {
        return true;
      }
    }
    return false;
  }

  /** The op as one line of JSON, with its newline. */
  static byte[] toLine(Op op) {
    try {
      return (JSON.writeValueAsString(op) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      // An Op has only strings, numbers and an enum: it always serialises.
      throw new UncheckedIOException(e);
    }
  }

  /** Cuts {@code file} back to the end of its last complete line, if it has a cut-off one. */
  private static void dropTruncatedLastLine(Path file) throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = channel.size();
      long end = size;
      ByteBuffer one = ByteBuffer.allocate(1);
      while (end > 0) {
        one.clear();
        channel.read(one, end - 1);
        if (one.get(0) == '\n') {
          break;
        }
        end--;
      }
      if (end < size) {
        channel.truncate(end);
      }
    }
  }
}
