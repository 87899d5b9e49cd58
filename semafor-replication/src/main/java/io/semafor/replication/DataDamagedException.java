package io.semafor.replication;

import java.io.IOException;

/**
 * A node's data on disk is damaged (a bad disk, a bit flip, a file changed by hand), not merely cut
 * short by a crash: the node refuses to start from it rather than serve a state that may differ
 * from the other members' without anyone knowing. Each replicator says what it found; the message
 * says what an operator does about it. {@code semafor server} ends with exit status 65 on it.
 */
public class DataDamagedException extends IOException {
  private static final long serialVersionUID = 1L;

  /** With the message said to the operator. */
  public DataDamagedException(String message) {
    super(message);
  }
}
