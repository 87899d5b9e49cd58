package io.semafor.http;

import java.time.Duration;

/**
 * How the HTTP API runs: its port and what one caller may cost it. Validated once by the canonical
 * constructor (errors name the setting, its bound and the value), then immutable and thread-safe.
 *
 * @param port the port on the server's host; 0 picks a free one ({@code semafor server} uses its
 *     client port + 2, 7402 by default; -1, no HTTP API, is the command's business, never a
 *     config's)
 * @param maxBodyBytes the largest request body; a larger one is answered 413 and changes nothing
 * @param maxWaitsPerPrincipal long polls and event streams one bearer token (one principal) may
 *     have open at once; past it, 429 {@code RESOURCE_EXHAUSTED}
 * @param maxWait the longest {@code timeout_ms} a long poll may ask for
 * @param idleTimeout a connection with no request in flight and silent this long is closed
 * @param writeTimeout a response (or event) not written to the caller within this is given up and
 *     its connection closed: a caller that stopped reading cannot hold the server's buffers
 * @param eventKeepAlive how often an event stream writes a comment line when nothing happens, so
 *     that a reader that vanished is noticed (the write fails) within about twice this
 * @param clientIdle a bearer token's pooled client with nothing in flight and unused this long is
 *     closed (its session ends; leases stay, they are delivered)
 */
public record HttpConfig(
    int port,
    int maxBodyBytes,
    int maxWaitsPerPrincipal,
    Duration maxWait,
    Duration idleTimeout,
    Duration writeTimeout,
    Duration eventKeepAlive,
    Duration clientIdle) {

  /** The default port of {@code semafor server --http-port}. */
  public static final int DEFAULT_PORT = 7402;

  /** Port 7402, 64 KiB bodies, 256 waits per principal, waits of up to 5 min. */
  public static final HttpConfig DEFAULTS =
      new HttpConfig(
          DEFAULT_PORT,
          64 * 1024,
          256,
          Duration.ofMinutes(5),
          Duration.ofSeconds(60),
          Duration.ofSeconds(10),
          Duration.ofSeconds(1),
          Duration.ofSeconds(60));

  /**
   * Checks every setting.
   *
   * @throws IllegalArgumentException naming the first setting out of range, its bound and value
   */
  public HttpConfig {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("httpPort outside 0..65535: " + port);
    }
    if (maxBodyBytes < 1024) {
      throw new IllegalArgumentException("httpMaxBodyBytes < 1024: " + maxBodyBytes);
    }
    if (maxWaitsPerPrincipal < 1) {
      throw new IllegalArgumentException("httpMaxWaitsPerPrincipal < 1: " + maxWaitsPerPrincipal);
    }
    positive("httpMaxWait", maxWait);
    positive("httpIdleTimeout", idleTimeout);
    positive("httpWriteTimeout", writeTimeout);
    positive("httpEventKeepAlive", eventKeepAlive);
    positive("httpClientIdle", clientIdle);
  }

  private static void positive(String setting, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(setting + " <= 0: " + value);
    }
  }

  /** This config on another port. */
  public HttpConfig withPort(int value) {
    return new HttpConfig(
        value,
        maxBodyBytes,
        maxWaitsPerPrincipal,
        maxWait,
        idleTimeout,
        writeTimeout,
        eventKeepAlive,
        clientIdle);
  }

  /** This config with another bound on waits per principal. */
  public HttpConfig withMaxWaitsPerPrincipal(int value) {
    return new HttpConfig(
        port, maxBodyBytes, value, maxWait, idleTimeout, writeTimeout, eventKeepAlive, clientIdle);
  }

  /** This config with another largest body. */
  public HttpConfig withMaxBodyBytes(int value) {
    return new HttpConfig(
        port,
        value,
        maxWaitsPerPrincipal,
        maxWait,
        idleTimeout,
        writeTimeout,
        eventKeepAlive,
        clientIdle);
  }

  /** This config with another idle timeout for connections and pooled clients. */
  public HttpConfig withIdle(Duration connections, Duration clients) {
    return new HttpConfig(
        port,
        maxBodyBytes,
        maxWaitsPerPrincipal,
        maxWait,
        connections,
        writeTimeout,
        eventKeepAlive,
        clients);
  }
}
