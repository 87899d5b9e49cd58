package io.semafor.client.internal;

import io.semafor.client.internal.session.SessionConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Link} needs: where the servers are, the session TTL to ask for, and timing.
 *
 * @param giveUpAfter how long without any reachable server before pending calls fail with
 *     UNAVAILABLE (their outcome unknown); reconnecting goes on for later calls
 * @param token the bearer token sent in every Hello; empty for none (docs/security.md)
 * @param tls the TLS context to connect with, or null for plain TCP
 * @param verifyHostname whether a server's certificate must name the address connected to
 */
public record LinkConfig(
    List<InetSocketAddress> addresses,
    Duration sessionTtl,
    String clientName,
    String clientHost,
    long clientPid,
    Duration connectTimeout,
    Duration giveUpAfter,
    String token,
    @Nullable SSLContext tls,
    boolean verifyHostname) {
  public LinkConfig {
    addresses = List.copyOf(addresses);
  }

  /** An address as the session machine names it: {@code host:port}. */
  static String text(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }

  /** What the session machine is configured with: these addresses, TTL, identity and give-up. */
  SessionConfig sessionConfig() {
    List<String> texts = addresses.stream().map(LinkConfig::text).toList();
    SessionConfig d = SessionConfig.defaults(texts.isEmpty() ? List.of("-") : texts);
    return new SessionConfig(
        d.addresses(),
        sessionTtl.toNanos(),
        clientName,
        clientHost,
        clientPid,
        token,
        d.ackDelayNanos(),
        d.probeAfterNanos(),
        d.answerDeadlineNanos(),
        d.backoffMinNanos(),
        d.backoffMaxNanos(),
        giveUpAfter.toNanos(),
        d.avoidSilentNanos(),
        d.stableAfterNanos());
  }

  /** Every field but the token, which must never reach a log line. */
  @Override
  public String toString() {
    return "LinkConfig[addresses="
        + addresses
        + ", sessionTtl="
        + sessionTtl
        + ", clientName="
        + clientName
        + ", token="
        + (token.isEmpty() ? "none" : "…")
        + ", tls="
        + (tls != null)
        + "]";
  }
}
