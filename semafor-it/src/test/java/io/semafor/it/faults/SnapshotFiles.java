package io.semafor.it.faults;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A node's snapshot files as tests see them on disk ({@code sm/snapshot.TERM_INDEX}, with {@code
 * .md5} beside each finished one), and the damage a bad sector does to one.
 */
public final class SnapshotFiles {
  private static final Pattern SNAPSHOT = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");

  private SnapshotFiles() {}

  /** Every snapshot file under {@code dataDir}, finished or not. */
  public static List<Path> all(Path dataDir) throws IOException {
    if (!Files.isDirectory(dataDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      return files.filter(p -> SNAPSHOT.matcher(p.getFileName().toString()).matches()).toList();
    }
  }

  /**
   * The snapshot a node would start from: the highest term, then index, among those whose digest
   * was written (one without is unfinished, and Ratis passes it over); empty if none.
   */
  public static Optional<Path> newestFinished(Path dataDir) throws IOException {
    return all(dataDir).stream()
        .filter(p -> Files.exists(p.resolveSibling(p.getFileName() + ".md5")))
        .max(
            Comparator.comparingLong((Path p) -> number(p, 1))
                .thenComparingLong(p -> number(p, 2)));
  }

  private static long number(Path snapshot, int group) {
    Matcher m = SNAPSHOT.matcher(snapshot.getFileName().toString());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a snapshot: " + snapshot);
    }
    return Long.parseLong(m.group(group));
  }

  /** What a bad sector or a flipped bit leaves: one byte in the middle of the file inverted. */
  public static void flipOneByte(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0xff);
    }
  }
}
