package io.semafor.conformance;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One case of the kit (conformance/README.md): its actors, each a client with its own session, and
 * its steps in order; {@code tags} say what a runner must support to run it.
 */
public record ConformanceCase(
    Path file,
    String name,
    String description,
    @Nullable String source,
    Set<String> tags,
    Map<String, Actor> actors,
    List<Step> steps) {

  /** The tag that lets a runner also run the case on a cluster. */
  public static final String CLUSTER_SAFE = "cluster-safe";

  /** Every tag a case may carry. */
  public static final Set<String> KNOWN_TAGS =
      Set.of(
          "session",
          "lease",
          "wait_many",
          "semop",
          "cut",
          "deafen",
          "freeze",
          "kill",
          CLUSTER_SAFE);

  /** An actor: one client with its own session; {@code sessionTtlMs} null for the default. */
  public record Actor(String name, @Nullable Long sessionTtlMs) {}

  public boolean clusterSafe() {
    return tags.contains(CLUSTER_SAFE);
  }
}
