package io.semafor.client.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/** A cluster member that does not lead said so, and maybe where the leader is. */
final class NotLeader extends IOException {
  private static final long serialVersionUID = 1L;

  /** The leader's {@code host:port} as the member named it, or empty. */
  final String leader;

  NotLeader(String message, String leader) {
    super(message);
    this.leader = leader;
  }

  /** The leader the member named ({@code host:port}), if it parses. */
  @Nullable InetSocketAddress leaderAddress() {
    String hint = leader;
    int colon = hint.lastIndexOf(':');
    if (colon <= 0) {
      return null;
    }
    try {
      // unresolved: a name is looked up by the attempt that connects to it, not here (this runs on
      // the reader thread too)
      return InetSocketAddress.createUnresolved(
          hint.substring(0, colon), Integer.parseInt(hint.substring(colon + 1)));
    } catch (IllegalArgumentException ignored) {
      return null; // a hint we cannot use: the addresses are tried in turn instead
    }
  }
}
