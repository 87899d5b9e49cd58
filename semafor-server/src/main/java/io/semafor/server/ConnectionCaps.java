package io.semafor.server;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The open client connections, in all, per source address and per authenticated principal, and
 * their caps: without them one client can open connections until the process runs out of file
 * descriptors or memory. A principal is counted once its {@code Hello} authenticates it, so one
 * principal cannot take the connections of others behind the same address, nor escape its cap by
 * connecting from many. Thread-safe: admitted on the acceptor's thread, released on event loops.
 */
final class ConnectionCaps {
  private final int max;
  private final int maxPerAddress;
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Integer> perPrincipal = new ConcurrentHashMap<>();

  ConnectionCaps(int max, int maxPerAddress) {
    this.max = max;
    this.maxPerAddress = maxPerAddress;
  }

  /**
   * Counts a new connection from {@code address}, unless a cap is reached.
   *
   * @return null if admitted (then {@link #release} it once closed); else why not, naming the cap
   */
  @Nullable String admit(InetAddress address) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      return "maxConnections (" + max + ") reached on this node";
    }
    if (take(perAddress, address, maxPerAddress)) {
      return null;
    }
    open.decrementAndGet();
    return "maxConnectionsPerClient ("
        + maxPerAddress
        + ") reached for "
        + address.getHostAddress();
  }

  /**
   * Counts a connection authenticated as {@code principal}, unless it has {@code
   * maxConnectionsPerClient} already.
   *
   * @return null if admitted (then {@link #releasePrincipal} it once closed); else why not
   */
  @Nullable String admitPrincipal(String principal) {
    if (take(perPrincipal, principal, maxPerAddress)) {
      return null;
    }
    return "maxConnectionsPerClient (" + maxPerAddress + ") reached for principal " + principal;
  }

  /** A connection {@link #admitPrincipal} admitted has closed, or is taken for another. */
  void releasePrincipal(String principal) {
    perPrincipal.computeIfPresent(principal, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** Adds one to {@code key}'s count unless it is at {@code cap}; whether it did. */
  private static <K> boolean take(ConcurrentHashMap<K, Integer> counts, K key, int cap) {
    boolean[] taken = {false};
    counts.compute(
        key,
        (k, n) -> {
          int now = n == null ? 0 : n;
          if (now >= cap) {
            return n;
          }
          taken[0] = true;
          return now + 1;
        });
    return taken[0];
  }

  /** A connection {@link #admit} admitted has closed. */
  void release(InetAddress address) {
    perAddress.computeIfPresent(address, (k, n) -> n <= 1 ? null : n - 1);
    open.decrementAndGet();
  }
}
