package io.semafor.server;

import io.semafor.core.Query;
import io.semafor.core.Reply;

/** A client's read in flight: where and under which id to answer it. */
record PendingRead(Connection connection, long id) implements ReadOrigin {
  @Override
  public void refused(String leaderHint) {
    connection.readRefused(leaderHint);
  }

  @Override
  public void answered(Query query, Reply reply, long logTime, ReadOrigin.Answers to) {
    to.readAnswered(this, query, reply, logTime);
  }
}
