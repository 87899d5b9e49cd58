package io.semafor.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.RaftGroupMembersView;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Seeds a fresh node's data directory from a backup file for the MicroRaft replicator ({@code
 * semafor snapshot restore --replicator microraft}): its log ({@code DIR/microraft}) starts with
 * the node's endpoint, the new cluster's members as the group's first members, the snapshot's term
 * and the state as a snapshot at the backup's position. The log has no entries; the first leader
 * appends after the snapshot's index. Every node of the new cluster is seeded from the same file
 * with the same members, so they start alike.
 *
 * <p>Unlike Ratis's seed, the members are stored: MicroRaft starts a node from its log's members,
 * not from {@code --peers}. Stateless; blocks on the disk.
 */
public final class MicroRaftSeed {
  private MicroRaftSeed() {}

  /**
   * What was written.
   *
   * @param log the log directory
   * @param term the term the state is recorded at
   * @param index the log index it is recorded at
   */
  public record Seeded(Path log, long term, long index) {}

  /**
   * Writes the state of {@code loaded} as the starting state of member {@code nodeId} of a group of
   * {@code members}, in {@code dataDir}, which must be absent or empty. A backup taken on a single
   * node has no log position and is recorded at term 1, index 1 (a MicroRaft snapshot needs a
   * position); one taken in a cluster keeps its term and index. Everything is written under a
   * temporary name and renamed into place last.
   *
   * @throws IllegalArgumentException if {@code nodeId} is not one of {@code members}
   * @throws FileAlreadyExistsException if {@code dataDir} exists and is not an empty directory
   * @throws IOException if it cannot be written
   */
  public static Seeded seed(
      Path dataDir, SnapshotFile.Loaded loaded, String nodeId, List<GroupMember> members)
      throws IOException {
    List<RaftEndpoint> endpoints = new ArrayList<>();
    MemberEndpoint self = null;
    for (GroupMember m : members) {
      MemberEndpoint e = MemberEndpoint.of(m);
      endpoints.add(e);
      if (m.id().equals(nodeId)) {
        self = e;
      }
    }
    if (self == null) {
      throw new IllegalArgumentException("--node-id: " + nodeId + " is not one of --peers");
    }
    SnapshotFile.requireNewDataDir(dataDir);
    SnapshotFile.Header header = loaded.header();
    long index = header.singleNode() ? 1 : Math.max(1, header.index());
    int term = header.singleNode() ? 1 : (int) Math.max(1, header.term());
    RaftGroupMembersView first =
        PeerCodec.MODEL
            .createRaftGroupMembersViewBuilder()
            .setLogIndex(0)
            .setMembers(endpoints)
            .setVotingMembers(endpoints)
            .build();
    Path partial = dataDir.resolve(MicroRaftReplicator.LOG_DIR + ".restoring");
    try (FileLogStore store = FileLogStore.open(partial, true)) {
      store.persistAndFlushLocalEndpoint(
          PeerCodec.MODEL
              .createRaftEndpointPersistentStateBuilder()
              .setLocalEndpoint(self)
              .setVoting(true)
              .build());
      store.persistAndFlushInitialGroupMembers(first);
      // a term below the snapshot's would have the first leader append an entry of a lower term
      store.persistAndFlushTerm(
          PeerCodec.MODEL.createRaftTermPersistentStateBuilder().setTerm(term).build());
      List<byte[]> chunks = EntryMachine.chunksOf(loaded.machine());
      for (int i = 0; i < chunks.size(); i++) {
        store.persistSnapshotChunk(
            PeerCodec.MODEL
                .createSnapshotChunkBuilder()
                .setIndex(index)
                .setTerm(term)
                .setOperation(chunks.get(i))
                .setSnapshotChunkIndex(i)
                .setSnapshotChunkCount(chunks.size())
                .setGroupMembersView(first)
                .build());
      }
      store.flush();
    } catch (IOException | RuntimeException e) {
      deleteTree(partial);
      throw e;
    }
    Path log = dataDir.resolve(MicroRaftReplicator.LOG_DIR);
    Files.move(partial, log, StandardCopyOption.ATOMIC_MOVE);
    return new Seeded(log, term, index);
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
