package io.semafor.replication;

import java.io.IOException;

/**
 * A node was started on a data directory that belongs to another member: its log names another node
 * id, or the same id at another address. Starting anyway would run a member nobody can reach at the
 * address its log gives (it never leads, and its peers look for it elsewhere), so the node refuses
 * before it writes anything; the message names both members and what to do. {@code semafor server}
 * ends with exit status 1 on it and prints the message alone.
 */
public class ForeignDataDirException extends IOException {
  private static final long serialVersionUID = 1L;

  /** With the message said to the operator. */
  public ForeignDataDirException(String message) {
    super(message);
  }
}
