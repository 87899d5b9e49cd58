package io.semafor.replication.group;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * The series every replicator exports on the server's registry, named and described once: whether a
 * leader is known and whether it is this node, the term, the leader changes seen, the commit and
 * applied index and their difference, and how long the log's syncs to disk take. A replicator gives
 * what it knows through {@link Group} and {@link Syncs}, read at scrape time (from atomics and
 * volatiles, so a scrape never waits for the member's threads), and adds the series of its own
 * library beside these.
 */
public final class GroupMetrics {
  /** The quantiles of the sync time exported, as the label says them. */
  static final String[] QUANTILES = {"0.5", "0.99", "1"};

  /** What a member knows of its group, read at scrape time on any thread. */
  public interface Group {
    /** Whether this member knows a leader (itself or another). */
    boolean knowsALeader();

    /** Whether this member leads and serves clients. */
    boolean isLeader();

    /** The term this member is in. */
    long term();

    /** Times this member saw the leader change. */
    long leaderChanges();

    /** The last log index this member knows committed. */
    long commitIndex();

    /** The last log index applied to this member's state machine. */
    long appliedIndex();
  }

  /** How long the log's syncs to disk took, read at scrape time on any thread. */
  public interface Syncs {
    /** Syncs since the log opened. */
    double count();

    /** The {@code quantile} (0 to 1; 1 is the longest) of the recent syncs, in seconds. */
    double quantileSeconds(double quantile);
  }

  private GroupMetrics() {}

  /**
   * Registers the group's series. Gauges hold {@code group} strongly, so the leader-change counter
   * (which Micrometer holds weakly) reads it as long as they are registered.
   */
  public static void bind(MeterRegistry registry, Group group) {
    gauge(
        registry,
        "semafor_raft_has_leader",
        "1 while this node knows a leader (itself or another), 0 during an election",
        group,
        g -> g.knowsALeader() ? 1 : 0);
    gauge(
        registry,
        "semafor_raft_is_leader",
        "1 on the node that leads and serves clients, 0 on the others",
        group,
        g -> g.isLeader() ? 1 : 0);
    gauge(registry, "semafor_raft_term", "The Raft term this node is in", group, Group::term);
    FunctionCounter.builder("semafor_raft_leader_changes", group, Group::leaderChanges)
        .description("Times this node saw the leader change (itself taking or losing it included)")
        .register(registry);
    gauge(
        registry,
        "semafor_raft_commit_index",
        "The last log index this node knows committed",
        group,
        Group::commitIndex);
    gauge(
        registry,
        "semafor_raft_applied_index",
        "The last log index applied to this node's state machine",
        group,
        Group::appliedIndex);
    gauge(
        registry,
        "semafor_raft_apply_lag",
        "Entries committed and not yet applied here (commit index minus applied index)",
        group,
        g -> Math.max(0, g.commitIndex() - g.appliedIndex()));
  }

  /**
   * Registers the log's sync series: a counter of syncs and the quantiles of their time over {@code
   * window} (for the description, e.g. "the last 1,024 syncs").
   */
  public static void bindSyncs(MeterRegistry registry, Syncs syncs, String window) {
    FunctionCounter.builder("semafor_raft_log_syncs", syncs, Syncs::count)
        .description("Syncs of the Raft log to disk (each makes every entry before it durable)")
        .register(registry);
    for (String q : QUANTILES) {
      double quantile = Double.parseDouble(q);
      Gauge.builder("semafor_raft_log_sync_seconds", syncs, s -> s.quantileSeconds(quantile))
          .description("Time a sync of the Raft log to disk took, by quantile over " + window)
          .tag("quantile", q)
          .baseUnit("seconds")
          .strongReference(true)
          .register(registry);
    }
  }

  private static <T> void gauge(
      MeterRegistry registry, String name, String description, T from, ToDoubleFunction<T> f) {
    // strong: Micrometer holds a gauge's object weakly, and the replicator holds only itself
    Gauge.builder(name, from, f).description(description).strongReference(true).register(registry);
  }
}
