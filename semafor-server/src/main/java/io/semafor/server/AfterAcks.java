package io.semafor.server;

import io.semafor.core.Command;
import io.semafor.core.Outcome;
import io.semafor.protocol.v1.ServerFrame;
import org.jspecify.annotations.Nullable;

/**
 * What waits for an {@code Acknowledge} a connection submitted to be applied: the pong of the
 * keep-alive that carried it (a keep-alive without an id: {@code answer} null, the pongs owed in
 * order; with one: that keep-alive's pong), or the answer to a request refused at the edge that
 * carried acknowledgements. Either tells the client its acknowledgements are in, so it must not go
 * out before they are (see {@link OwedPongs}).
 */
record AfterAcks(Connection connection, @Nullable ServerFrame answer) implements CommandOrigin {
  @Override
  public void refused(Command command, String leaderHint) {
    // the client reconnects to the leader and sends the acknowledgements again
    connection.notLeader(leaderHint);
  }

  @Override
  public void applied(Command command, Outcome outcome, long logTime, CommandOrigin.Answers to) {
    for (ServerFrame frame : connection.acksApplied(this)) {
      to.send(connection, frame);
    }
  }

  @Override
  public @Nullable Connection asker() {
    return null;
  }
}
