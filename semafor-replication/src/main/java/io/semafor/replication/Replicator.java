package io.semafor.replication;

import io.semafor.core.Command;
import io.semafor.core.Query;
import org.jspecify.annotations.Nullable;

/**
 * Where commands are decided and applied: in this process ({@link LocalReplicator}) or by a Raft
 * group. The state machine cannot tell them apart; the edge talks only to this.
 *
 * <p>Commands submitted by one thread are applied in the order that thread submitted them; each
 * outcome goes to the {@link ApplyListener} given at construction, on the thread that applies, one
 * at a time. Implementations are thread-safe.
 *
 * <p>Each request carries what its asker needs to route the answer, typed per kind of request
 * ({@link ApplyListener}): the replicator hands it back untouched, on the member that asked only.
 *
 * @param <C> what a command's asker gives
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
public interface Replicator<C, R, S> extends AutoCloseable {

  /**
   * Submits a command. Never waits for other threads; an implementation may apply queued commands
   * on the calling thread before returning. The outcome reaches the listener with {@code context}
   * (whatever the caller needs to route the answer).
   *
   * @throws ReplicatorClosedException if the replicator is closed
   */
  void submit(Command command, @Nullable C context);

  /**
   * Answers a query after every command submitted before it by the same thread: a read of the
   * caller's own writes. Its answer reaches {@link ApplyListener#read}.
   *
   * @throws ReplicatorClosedException if the replicator is closed
   */
  void read(Query query, @Nullable R context);

  /**
   * Takes a consistent snapshot of the whole state at a point in the apply order, after every
   * command submitted before it by the same thread (in a cluster: an entry of its own in the log,
   * taken when this node applies it; other nodes do nothing). The image reaches {@link
   * ApplyListener#snapshotTaken}, or {@link ApplyListener#snapshotRefused} if this node does not
   * lead. Serialising blocks the apply thread for the size of the state (decision 0022).
   *
   * @throws ReplicatorClosedException if the replicator is closed
   */
  void snapshot(@Nullable S context);

  /**
   * The log time now, in nanoseconds, in the same units as the deadlines in the machine's effects:
   * for turning a deadline into a delay.
   */
  long logTime();

  /** Whether this node may serve clients now (always, for a single node). */
  default boolean isLeader() {
    return true;
  }

  /** Where clients should go instead ({@code host:port}), or "" if not known. */
  default String leaderHint() {
    return "";
  }

  /**
   * What an operator wants to see of this replicator, as ordered key/value pairs whose values are
   * strings, numbers, or lists of such maps (for the admin endpoint, which writes them as JSON).
   */
  default java.util.Map<String, Object> status() {
    return java.util.Map.of("mode", "single", "role", "leader");
  }

  /**
   * Adds a member to the replication group, given as {@code id=host:clientPort:raftPort}, and
   * returns every member's id after the change. Blocks until the change is committed.
   *
   * @throws UnsupportedOperationException on a single node, which has no membership
   * @throws IllegalArgumentException naming {@code member} if it is malformed or already a member
   * @throws IllegalStateException if the group refused the change
   * @throws MembershipChangeUnknownException if the change was not committed in time: it may still
   *     be
   */
  default java.util.List<String> addMember(String member) {
    throw new UnsupportedOperationException("a single node has no members to change");
  }

  /**
   * Removes the member with this id and returns every member's id after the change. Blocks until
   * the change is committed.
   *
   * @throws UnsupportedOperationException on a single node, which has no membership
   * @throws IllegalArgumentException naming {@code member} if no member has this id
   * @throws IllegalStateException if the group refused the change
   * @throws MembershipChangeUnknownException if the change was not committed in time: it may still
   *     be
   */
  default java.util.List<String> removeMember(String id) {
    throw new UnsupportedOperationException("a single node has no members to change");
  }

  /** Stops accepting commands; what was submitted before is applied first. Idempotent. */
  @Override
  void close();

  /** A command or read came after {@link #close}. */
  final class ReplicatorClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ReplicatorClosedException() {
      super("the replicator is closed");
    }
  }

  /**
   * A membership change was not committed in the time allowed, and its outcome is unknown: the
   * leader may have begun it, and will then finish it later. Read the members before asking again.
   */
  final class MembershipChangeUnknownException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** With the message said to the operator. */
    public MembershipChangeUnknownException(String message) {
      super(message);
    }
  }
}
