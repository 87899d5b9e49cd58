package io.semafor.server;

import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.protocol.v1.ServerFrame;
import org.jspecify.annotations.Nullable;

/**
 * Who submitted a command to the replicator, and so where its outcome goes: the command context of
 * the server's {@link io.semafor.replication.Replicator}. Each kind says for itself what a refusal
 * and an outcome do to it; {@link Edge} does what is common to every command (watches, timers,
 * sessions) and leaves the rest to the origin. A command the server proposes itself (a timer, a
 * continuation) has none.
 */
sealed interface CommandOrigin permits Connection, AfterAcks, Edge.LocalCommand {
  /**
   * This node will not apply {@code command}: it does not lead ({@code leaderHint}, the leader's
   * client address, may be empty). Whether another node applied it is not known. Any thread.
   */
  void refused(Command command, String leaderHint);

  /**
   * {@code command} was applied at {@code logTime}; {@code to} reaches the edge. Applying thread.
   */
  void applied(Command command, Outcome outcome, long logTime, Answers to);

  /** The client connection that asked (for audit records); null if not a client's request. */
  @Nullable Connection asker();

  /** What an outcome may need of the edge; the applying thread only. */
  interface Answers {
    /**
     * Sends {@code reply} where its session is attached now, else back to {@code asker} (which sees
     * it for its audit log either way).
     */
    void route(Reply reply, @Nullable Connection asker, long logTime);

    /** Queues {@code frame} for {@code connection}, written when the batch ends. */
    void send(Connection connection, ServerFrame frame);
  }
}
