package io.semafor.client.internal;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * What a {@link Link} needs: where the servers are, the session TTL to ask for, and timing.
 *
 * @param giveUpAfter how long without any reachable server before pending calls fail with
 *     UNAVAILABLE (their outcome unknown); reconnecting goes on for later calls
 * @param token the bearer token sent in every Hello; empty for none (docs/security.md)
 */
public record LinkConfig(
    List<InetSocketAddress> addresses,
    Duration sessionTtl,
    String clientName,
    String clientHost,
    long clientPid,
    Duration connectTimeout,
    Duration giveUpAfter,
    String token) {
  public LinkConfig {
    addresses = List.copyOf(addresses);
  }
}
