package io.semafor.cli;

import io.semafor.replication.group.GroupMember;

/**
 * The one member of a durable single node: {@code semafor server --data-dir DIR} without {@code
 * --peers} runs a one-member cluster of the default replicator (decision 0051). Its address is
 * implied by the options a single node has anyway: the client port is {@code --port}, the Raft port
 * {@code --port + 100} (7400 and 7500 by default, as in every example of a cluster), so the node
 * can later grow into a cluster with {@code semafor cluster add}. The address goes into the node's
 * log; a later start that implies another address is refused by the replicator (the log's member is
 * kept), so the port must stay the same from start to start.
 *
 * @param id the node id ({@code --node-id}, else {@link #DEFAULT_ID})
 * @param host the host it listens on and members would reach it at ({@code --host})
 * @param clientPort {@code --port}
 * @param raftPort {@code --port + 100}
 */
record SingleMember(String id, String host, int clientPort, int raftPort) {
  /** The node id of a durable single node started without {@code --node-id}. */
  static final String DEFAULT_ID = "n1";

  /** How far above the client port the implied Raft port is. */
  static final int RAFT_PORT_OFFSET = 100;

  /**
   * The member a durable single node listening on {@code host:port} implies.
   *
   * @throws IllegalArgumentException naming {@code --port} when it implies no fixed address
   */
  static SingleMember of(String id, String host, int port) {
    if (port == 0) {
      throw new IllegalArgumentException(
          "--port 0: a node with --data-dir keeps its address in its log and needs the same one"
              + " at every start; give a fixed --port (its Raft port is --port + "
              + RAFT_PORT_OFFSET
              + ")");
    }
    if (port < 1 || port + RAFT_PORT_OFFSET > 65535) {
      throw new IllegalArgumentException(
          "--port "
              + port
              + ": a durable single node's Raft port, --port + "
              + RAFT_PORT_OFFSET
              + ", must be at most 65535; give a lower --port, or --node-id and --peers"
              + " ID=HOST:CLIENT_PORT:RAFT_PORT to choose the Raft port");
    }
    return new SingleMember(id, host, port, port + RAFT_PORT_OFFSET);
  }

  /** This member as a cluster's configuration names it. */
  GroupMember member() {
    return new GroupMember(id, host, clientPort, raftPort);
  }

  /** {@code id=host:clientPort:raftPort}, as {@code --peers} would give it. */
  @Override
  public String toString() {
    return id + "=" + host + ":" + clientPort + ":" + raftPort;
  }
}
