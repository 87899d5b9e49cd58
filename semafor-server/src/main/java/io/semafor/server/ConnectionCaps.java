package io.semafor.server;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The open client connections, in all and per source address, and their caps: without them one
 * client can open connections until the process runs out of file descriptors or memory.
 * Thread-safe: admitted on the acceptor's thread, released on event loops.
 */
final class ConnectionCaps {
  private final int max;
  private final int maxPerAddress;
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

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
    boolean[] admitted = {false};
    perAddress.compute(
        address,
        (k, n) -> {
          int now = n == null ? 0 : n;
          if (now >= maxPerAddress) {
            return n;
          }
          admitted[0] = true;
          return now + 1;
        });
    if (admitted[0]) {
      return null;
    }
    open.decrementAndGet();
    return "maxConnectionsPerClient ("
        + maxPerAddress
        + ") reached for "
        + address.getHostAddress();
  }

  /** A connection {@link #admit} admitted has closed. */
  void release(InetAddress address) {
    perAddress.computeIfPresent(address, (k, n) -> n <= 1 ? null : n - 1);
    open.decrementAndGet();
  }
}
