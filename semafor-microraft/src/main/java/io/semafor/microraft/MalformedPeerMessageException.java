package io.semafor.microraft;

/**
 * A peer frame that is not a MicroRaft message this codec wrote: truncated, with a count or length
 * beyond the frame, an unknown type or operation, or bytes left over. The transport closes the
 * connection it came on; nothing of the frame reaches the Raft node.
 */
public final class MalformedPeerMessageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** With what is wrong, for the log. */
  public MalformedPeerMessageException(String message) {
    super(message);
  }
}
