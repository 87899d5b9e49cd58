package io.semafor.raft;

import io.semafor.replication.SnapshotFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageMetadata;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Seeds a fresh node's data directory from a backup file ({@code semafor snapshot restore}), so
 * that the node starts from that state: the directory gets the Raft storage Ratis would format for
 * the group ({@code DIR/<group id>/current/raft-meta}), with the term set to the snapshot's, and
 * the state as the state-machine snapshot {@link SemaforStateMachine} loads ({@code DIR/<group
 * id>/sm/snapshot.<term>_<index>} and its {@code .md5}). The log is empty; the first leader appends
 * after the snapshot's index. The members are not stored: they are the {@code --peers} the node is
 * first started with, as for any new node (decision 0022).
 *
 * <p>Stateless; blocks on the disk.
 */
public final class RaftRestore {
  private RaftRestore() {}

  /**
   * What was written.
   *
   * @param snapshotFile the state-machine snapshot file
   * @param term the term it is recorded at
   * @param index the log index it is recorded at
   */
  public record Seeded(Path snapshotFile, long term, long index) {}

  /**
   * Writes the state of {@code loaded} as the starting state of a node whose data directory is
   * {@code dataDir}, which must be absent or empty. A backup taken on a single node has no log
   * position and is recorded at term 0, index 0; one taken in a cluster keeps its term and index.
   * Everything is written under a temporary name and renamed into place last, so a failure leaves
   * no half-seeded group behind.
   *
   * @throws FileAlreadyExistsException if {@code dataDir} exists and is not an empty directory
   * @throws IOException if it cannot be written
   */
  public static Seeded seed(Path dataDir, SnapshotFile.Loaded loaded) throws IOException {
    SnapshotFile.requireNewDataDir(dataDir);
    SnapshotFile.Header header = loaded.header();
    long term = header.singleNode() ? 0 : header.term();
    long index = header.singleNode() ? 0 : header.index();
    String group = RaftReplicator.GROUP_ID.getUuid().toString();
    Path partial = dataDir.resolve(group + ".restoring");
    Files.createDirectories(partial);
    try (RaftStorage storage =
        RaftStorage.newBuilder()
            .setDirectory(partial.toFile())
            .setOption(RaftStorage.StartupOption.FORMAT)
            .setStorageFreeSpaceMin(RaftServerConfigKeys.storageFreeSpaceMin(new RaftProperties()))
            .build()) {
      storage.initialize();
      // a term below the snapshot's would have the first leader append an entry of a lower term
      // after it; the vote is nobody's
      storage
          .getMetadataFile()
          .persist(
              RaftStorageMetadata.valueOf(term, RaftStorageMetadata.getDefault().getVotedFor()));
      Path sm = storage.getStorageDir().getStateMachineDir().toPath();
      Files.createDirectories(sm);
      Path file = sm.resolve(SimpleStateMachineStorage.getSnapshotFileName(term, index));
      try (OutputStream out = Files.newOutputStream(file)) {
        out.write(loaded.body());
      }
      MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
    } catch (IOException | RuntimeException e) {
      deleteTree(partial);
      throw e;
    }
    Path groupDir = dataDir.resolve(group);
    Files.move(partial, groupDir, StandardCopyOption.ATOMIC_MOVE);
    return new Seeded(
        groupDir.resolve("sm").resolve(SimpleStateMachineStorage.getSnapshotFileName(term, index)),
        term,
        index);
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
