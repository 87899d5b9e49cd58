package io.semafor.raft;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.replication.ReplicatorProvider;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The Apache Ratis replicator ({@code --replicator ratis}), found through {@code ServiceLoader}.
 * Its tuning is raw Ratis properties, applied over Semafor's own; keys Semafor's options set or its
 * correctness depends on are refused ({@link RatisProperties}).
 */
public final class RatisProvider implements ReplicatorProvider {
  /** For {@code ServiceLoader}. */
  public RatisProvider() {}

  @Override
  public String name() {
    return "ratis";
  }

  @Override
  public ReplicatorFactory factory(ClusterSpec spec) {
    return RaftReplicator.factory(spec);
  }

  @Override
  public boolean seedNeedsMembers() {
    return false; // Ratis stores no members with a snapshot: they are the first --peers
  }

  @Override
  public Seeded seed(
      Path dataDir, SnapshotFile.Loaded state, @Nullable String nodeId, List<GroupMember> members)
      throws IOException {
    RaftRestore.Seeded seeded = RaftRestore.seed(dataDir, state);
    return new Seeded(seeded.term(), seeded.index());
  }
}
