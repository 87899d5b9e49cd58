package io.semafor.microraft;

import io.microraft.RaftEndpoint;
import io.netty.util.NetUtil;
import io.semafor.replication.group.GroupMember;
import java.nio.charset.StandardCharsets;

/**
 * A member of a MicroRaft group as Semafor names it: its node id, the address its peers reach it at
 * and the port its clients use. These ride with the member in every message and in the log's
 * membership entries, so a member added at run time is reachable, and its clients redirected to it,
 * without a side table. Two endpoints are the same member only if every part matches, as Semafor's
 * {@code --peers} entries are compared.
 *
 * @param id the node id, 1-255 UTF-8 bytes
 * @param host the host name or address peers and clients connect to, 1-255 UTF-8 bytes
 * @param port the peer (Raft) port, 1-65535
 * @param clientPort the client port, 1-65535
 */
public record MemberEndpoint(String id, String host, int port, int clientPort)
    implements RaftEndpoint {
  /** The longest id or host, in UTF-8 bytes, that the peer codec carries. */
  public static final int MAX_TEXT_BYTES = 255;

  /**
   * Checks the parts.
   *
   * @throws IllegalArgumentException naming the part that is empty, too long or out of range
   */
  public MemberEndpoint {
    checkText("id", id);
    checkText("host", host);
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port: " + port + " is outside 1..65535");
    }
    if (clientPort < 1 || clientPort > 65535) {
      throw new IllegalArgumentException("clientPort: " + clientPort + " is outside 1..65535");
    }
  }

  /** The endpoint of a member as an operator names it. */
  public static MemberEndpoint of(GroupMember member) {
    return new MemberEndpoint(member.id(), member.host(), member.raftPort(), member.clientPort());
  }

  /** The member as an operator names it, {@code id=host:clientPort:raftPort}. */
  public GroupMember member() {
    return new GroupMember(id, host, clientPort, port);
  }

  /** {@code host:clientPort}, where this member's clients connect. */
  public String clientAddress() {
    return host + ":" + clientPort;
  }

  /** The node id: what MicroRaft reports and logs as this member. */
  @Override
  public Object getId() {
    return id;
  }

  /** Whether the host is an IPv4 or IPv6 address, which connecting to needs no name lookup. */
  public boolean hostIsAddress() {
    return NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host);
  }

  private static void checkText(String part, String text) {
    int bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_TEXT_BYTES) {
      throw new IllegalArgumentException(
          part + ": must be 1-" + MAX_TEXT_BYTES + " UTF-8 bytes, not " + bytes);
    }
  }
}
