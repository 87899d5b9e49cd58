package io.semafor.client.internal;

import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import java.time.Duration;

/**
 * The {@code Hello}s of the Java client's connections that carry no session of their own: a watch's
 * and a snapshot download's (docs/protocol.md §2; the session's is its machine's, {@code
 * ClientSession}). Stateless; thread-safe.
 */
public final class Hellos {
  private Hellos() {}

  /**
   * Authenticates with {@code config}'s token and opens no session: a connection that keeps nothing
   * alive (a watch).
   */
  public static ClientFrame authenticateOnly(LinkConfig config) {
    return ClientFrame.newBuilder().setHello(identified(config).setNoSession(true)).build();
  }

  /**
   * Authenticates with {@code token} in a session of {@code ttl} that ends by itself, the client
   * calling itself {@code clientName}: a one-off exchange such as a snapshot download.
   */
  public static ClientFrame shortSession(String token, Duration ttl, String clientName) {
    return ClientFrame.newBuilder()
        .setHello(
            Hello.newBuilder()
                .setProtocolVersion(Frames.PROTOCOL_VERSION)
                .setSessionTtlNs(ttl.toNanos())
                .setClientName(clientName)
                .setToken(token))
        .build();
  }

  private static Hello.Builder identified(LinkConfig config) {
    return Hello.newBuilder()
        .setProtocolVersion(Frames.PROTOCOL_VERSION)
        .setToken(config.token())
        .setClientName(config.clientName())
        .setClientHost(config.clientHost())
        .setClientPid(config.clientPid());
  }
}
