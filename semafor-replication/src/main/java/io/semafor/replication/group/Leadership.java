package io.semafor.replication.group;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Who leads, as this node knows it, and the leader's log time. The leader stamps each entry with
 * its log time: its own monotonic clock, offset when it became leader so that log time continues
 * from the last applied command and never runs backwards across leaders.
 *
 * <p>Thread-safe: written on the Raft library's threads as leadership changes, read on any thread.
 */
public final class Leadership {
  private final String nodeId;

  private volatile boolean leader;
  private volatile String leaderId = "";

  /** Subtracted from {@link System#nanoTime()} to give the log time while this node leads. */
  private volatile long epoch;

  /** The leader this node saw last ("" for none), and how many times that changed. */
  private final AtomicReference<String> lastSeenLeader = new AtomicReference<>("");

  private final AtomicLong changes = new AtomicLong();

  /** Leadership as node {@code nodeId} sees it: no leader known yet. */
  public Leadership(String nodeId) {
    this.nodeId = nodeId;
  }

  /** Whether this node leads (and has not been told to stop). */
  public boolean isLeader() {
    return leader;
  }

  /** The id of the leader as this node knows it, or "" if none is known. */
  public String leaderId() {
    return leader ? nodeId : leaderId;
  }

  /**
   * This node leads from now, its log time continuing from {@code lastAppliedLogTime}, the log time
   * of the last command it applied.
   */
  public void becameLeader(long lastAppliedLogTime) {
    epoch = System.nanoTime() - lastAppliedLogTime;
    leaderId = nodeId;
    sawLeader(nodeId);
    leader = true;
  }

  /** Another node (or none, "") leads now; returns whether this node led until now. */
  public boolean changedTo(String newLeaderId) {
    leaderId = newLeaderId;
    sawLeader(newLeaderId);
    boolean was = leader;
    leader = false;
    return was;
  }

  /** This node stops leading because it closes. */
  public void stop() {
    leader = false;
  }

  /**
   * The log time now while this node leads (never blocks); {@code otherwise} (the last applied
   * command's) when it does not.
   */
  public long logTime(java.util.function.LongSupplier otherwise) {
    return leader ? System.nanoTime() - epoch : otherwise.getAsLong();
  }

  /** How many times the known leader changed (see {@link #sawLeader}). */
  public AtomicLong changes() {
    return changes;
  }

  /**
   * Counts a leader change when a leader is known that is not the one seen last: a new leader, or
   * the same one again after an election without one (as etcd counts them).
   */
  private void sawLeader(String id) {
    String before = lastSeenLeader.getAndSet(id);
    if (!id.isEmpty() && !id.equals(before)) {
      changes.incrementAndGet();
    }
  }
}
