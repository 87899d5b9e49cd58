package io.semafor.microraft;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.replication.ReplicatorProvider;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The MicroRaft replicator ({@code --replicator microraft}, the default), found through {@code
 * ServiceLoader}. Its tuning is the {@code microraft.} properties of {@link MicroRaftConfig}.
 */
public final class MicroRaftProvider implements ReplicatorProvider {
  /** For {@code ServiceLoader}. */
  public MicroRaftProvider() {}

  @Override
  public String name() {
    return "microraft";
  }

  @Override
  public ReplicatorFactory factory(ClusterSpec spec) {
    return MicroRaftReplicator.factory(MicroRaftConfig.from(spec));
  }

  @Override
  public boolean seedNeedsMembers() {
    return true; // its log stores the group's members with the snapshot
  }

  @Override
  public Seeded seed(
      Path dataDir, SnapshotFile.Loaded state, @Nullable String nodeId, List<GroupMember> members)
      throws IOException {
    MicroRaftSeed.Seeded seeded =
        MicroRaftSeed.seed(dataDir, state, Objects.requireNonNull(nodeId, "nodeId"), members);
    return new Seeded(seeded.term(), seeded.index());
  }
}
