package io.semafor.server;

import io.semafor.core.Query;
import io.semafor.core.Reply;

/**
 * Who asked the replicator for a read, and so what its answer is for: the read context of the
 * server's {@link io.semafor.replication.Replicator}. A read travels in the apply order, so some
 * are not a client's question at all but a point in that order: a watch's start, a catch-up, a
 * heartbeat, a permissions sweep. Each kind says for itself what a refusal and an answer do to it;
 * what needs the edge's state goes through {@link Answers}.
 */
sealed interface ReadOrigin
    permits PendingRead,
        Edge.LocalRead,
        EdgeWatches.Start,
        EdgeWatches.CatchUp,
        EdgeWatches.Heartbeat,
        Revocation.Sweep {
  /**
   * The read was not made: this node does not lead ({@code leaderHint}, the leader's client
   * address, may be empty). Any thread.
   */
  void refused(String leaderHint);

  /** The read was answered as of {@code logTime}; {@code to} reaches the edge. Applying thread. */
  void answered(Query query, Reply reply, long logTime, Answers to);

  /** What an answer may need of the edge, one method per kind that needs it; applying thread. */
  interface Answers {
    /** A client's read: its answer goes to its connection. */
    void readAnswered(PendingRead read, Query query, Reply reply, long logTime);

    /** A watch starts here in the apply order. */
    void startWatch(EdgeWatches.Start start, long logTime);

    /** {@code connection}'s watches left behind catch up from here. */
    void catchUp(Connection connection, long logTime);

    /** Every watch and waiting request is checked against new permissions here. */
    void sweep(Revocation.Sweep sweep);

    /** Every watch that keeps up is told it is synced. */
    void heartbeat(long logTime);
  }
}
