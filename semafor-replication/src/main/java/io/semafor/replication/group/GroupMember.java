package io.semafor.replication.group;

/**
 * A member of a cluster as an operator names it, {@code id=host:clientPort:raftPort}: its node id,
 * the host its clients and peers reach it at, the port clients use and the port Raft traffic uses.
 * Every replicator reads members this way ({@code --peers}, {@code semafor cluster add}).
 *
 * @param id the node id
 * @param host the host name or address
 * @param clientPort the port clients connect to, 1-65535
 * @param raftPort the port the other members connect to, 1-65535
 */
public record GroupMember(String id, String host, int clientPort, int raftPort) {
  /** {@code host:clientPort}, what a client is told when redirected here. */
  public String clientAddress() {
    return host + ":" + clientPort;
  }

  /** {@code host:raftPort}. */
  public String raftAddress() {
    return host + ":" + raftPort;
  }

  /** {@code id=host:clientPort:raftPort}, as {@link #parse} reads it. */
  @Override
  public String toString() {
    return id + "=" + host + ":" + clientPort + ":" + raftPort;
  }

  /**
   * Parses one {@code id=host:clientPort:raftPort}.
   *
   * @param argument the name of the argument it came in, for the error
   * @throws IllegalArgumentException naming the argument and what is wrong
   */
  public static GroupMember parse(String argument, String text) {
    String p = text.trim();
    int eq = p.indexOf('=');
    String[] address = eq < 0 ? new String[0] : p.substring(eq + 1).split(":", -1);
    if (eq <= 0 || address.length != 3 || address[0].isEmpty()) {
      throw new IllegalArgumentException(
          argument + ": '" + p + "' is not id=host:clientPort:raftPort");
    }
    try {
      int clientPort = Integer.parseInt(address[1]);
      int raftPort = Integer.parseInt(address[2]);
      if (clientPort < 1 || clientPort > 65535 || raftPort < 1 || raftPort > 65535) {
        throw new IllegalArgumentException(argument + ": '" + p + "' has a port outside 1..65535");
      }
      return new GroupMember(p.substring(0, eq), address[0], clientPort, raftPort);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          argument + ": '" + p + "' has a port that is not a number", e);
    }
  }
}
