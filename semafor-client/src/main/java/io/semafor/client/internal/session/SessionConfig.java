package io.semafor.client.internal.session;

import java.util.List;

/**
 * How a {@link ClientSession} behaves. Times in nanoseconds.
 *
 * <p>{@code answerDeadlineNanos} and {@code probeAfterNanos} bound how long a silent server is
 * waited for: while anything is outstanding and nothing was heard for {@code probeAfterNanos}, a
 * keep-alive with an id (answered at once by a live server) goes out; no answer within {@code
 * answerDeadlineNanos} and the connection is left for another address. A {@code Welcome} gets the
 * same deadline.
 *
 * @param addresses the servers' {@code host:port}, dialled in turn; at least one
 * @param sessionTtlNanos the session TTL asked for; 0: the server's default (10 s)
 * @param clientName shown by inspection tools
 * @param clientHost the client's host name, shown likewise
 * @param clientPid the client's process id, shown likewise; 0: not given
 * @param token the bearer token; empty: none
 * @param ackDelayNanos how long an answer may wait for a request to carry its acknowledgement
 *     before a keep-alive carries it
 * @param probeAfterNanos silence, while something is outstanding, after which a probe goes out
 * @param answerDeadlineNanos how long a probe or a {@code Hello} is waited for
 * @param backoffMinNanos the wait after every address failed in turn, at first
 * @param backoffMaxNanos the longest such wait (it doubles up to it)
 * @param giveUpAfterNanos with no server for this long, pending calls fail {@code UNAVAILABLE}; 0:
 *     the session's TTL + 5 s
 * @param avoidSilentNanos how long an address that went silent is dialled last
 * @param stableAfterNanos a session connection lost sooner after its {@code Welcome} counts as a
 *     failed dial (every address failing so backs off)
 */
public record SessionConfig(
    List<String> addresses,
    long sessionTtlNanos,
    String clientName,
    String clientHost,
    long clientPid,
    String token,
    long ackDelayNanos,
    long probeAfterNanos,
    long answerDeadlineNanos,
    long backoffMinNanos,
    long backoffMaxNanos,
    long giveUpAfterNanos,
    long avoidSilentNanos,
    long stableAfterNanos) {

  /** A millisecond in nanoseconds. */
  public static final long MS = 1_000_000L;

  /** A second in nanoseconds. */
  public static final long SECOND = 1_000_000_000L;

  /** The TTL assumed until a {@code Welcome} tells the session's own: the server's default. */
  public static final long DEFAULT_TTL_NANOS = 10 * SECOND;

  /**
   * @throws IllegalArgumentException if {@code addresses} is empty
   */
  public SessionConfig {
    addresses = List.copyOf(addresses);
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("addresses: at least one host:port is needed");
    }
  }

  /** The defaults: the server's TTL, no identity or token, the timings above. */
  public static SessionConfig defaults(List<String> addresses) {
    return new SessionConfig(
        addresses,
        0,
        "",
        "",
        0,
        "",
        MS,
        250 * MS,
        750 * MS,
        50 * MS,
        SECOND,
        0,
        3 * SECOND,
        SECOND);
  }
}
