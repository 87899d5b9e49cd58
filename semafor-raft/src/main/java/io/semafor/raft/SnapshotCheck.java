package io.semafor.raft;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Checks a node's snapshots before it starts: the one it would start from — as Ratis picks it, the
 * highest term and index among those with a digest beside them — must hash to that digest.
 * Stateless.
 */
final class SnapshotCheck {
  private static final Pattern SNAPSHOT = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");

  private SnapshotCheck() {}

  private record Found(Path file, long term, long index) {}

  /**
   * Returns quietly if {@code dataDir} holds no snapshot or its latest is whole.
   *
   * @throws CorruptSnapshotException if the latest snapshot's content does not hash to its digest
   * @throws IOException if the directory or the snapshot cannot be read
   */
  static void latestIsWhole(Path dataDir) throws IOException {
    if (!Files.isDirectory(dataDir)) {
      return;
    }
    Optional<Found> latest;
    try (Stream<Path> files = Files.walk(dataDir, 3)) {
      latest =
          files
              .filter(
                  p -> p.getParent() != null && p.getParent().getFileName().toString().equals("sm"))
              .map(SnapshotCheck::parse)
              .flatMap(Optional::stream)
              .filter(
                  f -> Files.exists(MD5FileUtil.getDigestFileForFile(f.file().toFile()).toPath()))
              .max(Comparator.comparingLong(Found::term).thenComparingLong(Found::index));
    }
    if (latest.isEmpty()) {
      return;
    }
    Path file = latest.get().file();
    MD5Hash written = MD5FileUtil.readStoredMd5ForFile(file.toFile());
    MD5Hash read = MD5FileUtil.computeMd5ForFile(file.toFile());
    if (!written.equals(read)) {
      throw new CorruptSnapshotException(file, written, read);
    }
  }

  private static Optional<Found> parse(Path p) {
    Matcher m = SNAPSHOT.matcher(p.getFileName().toString());
    return m.matches()
        ? Optional.of(new Found(p, Long.parseLong(m.group(1)), Long.parseLong(m.group(2))))
        : Optional.empty();
  }
}
