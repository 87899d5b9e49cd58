package io.semafor.server;

import io.semafor.server.options.Durations;
import java.time.Duration;

/**
 * What one client may cost a node, so that no client can exhaust it for the others
 * (docs/security-limits.md, docs/decisions/0029-bounded-clients.md). A "client" is a source address
 * today; the owner key of {@link SessionQuota} can become an authenticated principal. Immutable;
 * validated once at construction.
 *
 * @param maxConnections most open client connections on this node; more are refused with a {@code
 *     Fatal} RESOURCE_EXHAUSTED
 * @param maxConnectionsPerClient most open connections from one source address
 * @param maxSessionsPerClient most live sessions opened from one source address on this node,
 *     counted until they end (a closed connection's sessions count until they expire)
 * @param helloTimeout how long a new connection may take to be welcomed into a session
 * @param frameTimeout how long a frame may take to arrive in full once its first byte arrived
 * @param idleTimeout how long a connection without a session may stay silent
 * @param maxPendingFrameBytes bytes of unfinished frames held for all connections together; the
 *     connection whose bytes would go over is closed
 * @param maxUnreadBytes bytes of replies queued for one connection whose client does not read them;
 *     over it the connection is closed
 */
public record ClientLimits(
    int maxConnections,
    int maxConnectionsPerClient,
    int maxSessionsPerClient,
    Duration helloTimeout,
    Duration frameTimeout,
    Duration idleTimeout,
    long maxPendingFrameBytes,
    long maxUnreadBytes) {

  /** The defaults (docs/security-limits.md says why each). */
  public static final ClientLimits DEFAULT =
      new ClientLimits(
          10_000,
          1_000,
          1_000,
          Duration.ofSeconds(10),
          Duration.ofSeconds(30),
          Duration.ofSeconds(60),
          64L << 20,
          8L << 20);

  /**
   * Checks every limit.
   *
   * @throws IllegalArgumentException naming the first limit out of range, its bound and its value
   */
  public ClientLimits {
    atLeast("maxConnections", maxConnections, 1);
    atLeast("maxConnectionsPerClient", maxConnectionsPerClient, 1);
    atLeast("maxSessionsPerClient", maxSessionsPerClient, 1);
    positive("helloTimeout", helloTimeout);
    positive("frameTimeout", frameTimeout);
    positive("idleTimeout", idleTimeout);
    atLeast("maxPendingFrameBytes", maxPendingFrameBytes, 64 * 1024);
    atLeast("maxUnreadBytes", maxUnreadBytes, 64 * 1024);
  }

  private static void atLeast(String setting, long value, long bound) {
    if (value < bound) {
      throw new IllegalArgumentException(setting + " < " + bound + ": " + value);
    }
  }

  private static void positive(String setting, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(setting + " <= 0: " + Durations.format(value));
    }
  }

  /** These limits with another {@link #maxConnections}. */
  public ClientLimits withMaxConnections(int value) {
    return new ClientLimits(
        value,
        maxConnectionsPerClient,
        maxSessionsPerClient,
        helloTimeout,
        frameTimeout,
        idleTimeout,
        maxPendingFrameBytes,
        maxUnreadBytes);
  }

  /**
   * These limits with another {@link #maxUnreadBytes}.
   *
   * @throws IllegalArgumentException if it is below 64 KiB
   */
  public ClientLimits withMaxUnreadBytes(long value) {
    return withBytes(maxPendingFrameBytes, value);
  }

  /** These limits with another {@link #maxConnectionsPerClient}. */
  public ClientLimits withMaxConnectionsPerClient(int value) {
    return new ClientLimits(
        maxConnections,
        value,
        maxSessionsPerClient,
        helloTimeout,
        frameTimeout,
        idleTimeout,
        maxPendingFrameBytes,
        maxUnreadBytes);
  }

  /** These limits with another {@link #maxSessionsPerClient}. */
  public ClientLimits withMaxSessionsPerClient(int value) {
    return new ClientLimits(
        maxConnections,
        maxConnectionsPerClient,
        value,
        helloTimeout,
        frameTimeout,
        idleTimeout,
        maxPendingFrameBytes,
        maxUnreadBytes);
  }

  /** These limits with other timeouts. */
  public ClientLimits withTimeouts(Duration hello, Duration frame, Duration idle) {
    return new ClientLimits(
        maxConnections,
        maxConnectionsPerClient,
        maxSessionsPerClient,
        hello,
        frame,
        idle,
        maxPendingFrameBytes,
        maxUnreadBytes);
  }

  /** These limits with other byte bounds. */
  public ClientLimits withBytes(long pendingFrames, long unread) {
    return new ClientLimits(
        maxConnections,
        maxConnectionsPerClient,
        maxSessionsPerClient,
        helloTimeout,
        frameTimeout,
        idleTimeout,
        pendingFrames,
        unread);
  }
}
