package io.semafor.replication;

import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A replicator a cluster node can run, found by its name through {@link ServiceLoader}: each
 * replicator module names its provider in {@code
 * META-INF/services/io.semafor.replication.ReplicatorProvider}. The server, the CLI and the tests
 * choose one by name ({@code --replicator}) and know nothing else of it: a provider turns a {@link
 * ClusterSpec} into its library's configuration and a {@link ReplicatorFactory}, and seeds a data
 * directory from a backup. Implementations are stateless and thread-safe.
 */
public interface ReplicatorProvider {
  /** The replicator a cluster node runs when none is named (decision 0046). */
  String DEFAULT = "microraft";

  /** The name {@code --replicator} takes, lower case: {@code microraft}, {@code ratis}. */
  String name();

  /**
   * A factory of the replicator {@code spec} describes. Checks everything first: nothing starts on
   * a spec it refuses.
   *
   * @throws IllegalArgumentException naming what is wrong: {@code raftProperty: KEY ...} for a
   *     tuning key it does not read or a value it cannot take
   */
  ReplicatorFactory factory(ClusterSpec spec);

  /** Whether {@link #seed} needs the node's id and members (its log stores them). */
  boolean seedNeedsMembers();

  /**
   * Seeds the empty (or missing) data directory {@code dataDir} with {@code state}, so that a node
   * started on it begins from that state ({@code semafor snapshot restore}).
   *
   * @param nodeId the node it is for; null only if {@link #seedNeedsMembers} is false
   * @param members the cluster's members; empty only if {@link #seedNeedsMembers} is false
   * @throws java.nio.file.FileAlreadyExistsException if {@code dataDir} holds a log already
   * @throws IOException if it cannot be written
   */
  Seeded seed(
      Path dataDir, SnapshotFile.Loaded state, @Nullable String nodeId, List<GroupMember> members)
      throws IOException;

  /**
   * Where a seeded node's log starts.
   *
   * @param term the term the state is recorded at
   * @param index the log index it is recorded at
   */
  record Seeded(long term, long index) {}

  /**
   * The provider named {@code name} (any case).
   *
   * @throws IllegalArgumentException {@code replicator: ...} naming the ones there are, if none is
   *     called so
   */
  static ReplicatorProvider named(String name) {
    String wanted = name.toLowerCase(Locale.ROOT);
    List<ReplicatorProvider> all = all();
    for (ReplicatorProvider p : all) {
      if (p.name().equals(wanted)) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "replicator: '"
            + name
            + "' is "
            + (all.isEmpty()
                ? "not here: this build has no replicator"
                : "none of " + String.join(", ", names(all))));
  }

  /**
   * Every provider on the class path that loads, by name. One that does not (a missing class, a
   * failing constructor) is logged and left out, so that it does not hide the others.
   */
  static List<ReplicatorProvider> all() {
    List<ReplicatorProvider> all = new ArrayList<>();
    Iterator<ReplicatorProvider> found =
        ServiceLoader.load(ReplicatorProvider.class, ReplicatorProvider.class.getClassLoader())
            .iterator();
    // bounded: the loader tries each provider file line once, and an error moves it past the line
    for (int tried = 0; tried < 1_000; tried++) {
      try {
        if (!found.hasNext()) {
          break;
        }
        all.add(found.next());
      } catch (ServiceConfigurationError e) {
        LoggerFactory.getLogger(ReplicatorProvider.class)
            .warn("a replicator provider could not be loaded, and is left out: {}", e.toString());
      }
    }
    all.sort(Comparator.comparing(ReplicatorProvider::name));
    return all;
  }

  /** The names of {@code providers}, in order. */
  private static List<String> names(List<ReplicatorProvider> providers) {
    return providers.stream().map(ReplicatorProvider::name).toList();
  }
}
