package io.semafor.server.options;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;

/**
 * The safe default (docs/security.md#safe-defaults): a server reachable from other machines
 * authenticates its clients, unless the operator says {@code --insecure}. Loopback needs nothing,
 * so the quick start stays one line. Stateless.
 */
final class SafeDefaults {
  private SafeDefaults() {}

  /**
   * Why a server may not listen on {@code host} as configured; null if it may.
   *
   * @param authenticated whether an auth file is in force
   * @param insecure whether the operator allowed it anyway
   */
  static @Nullable String refusal(String host, boolean authenticated, boolean insecure) {
    if (authenticated || insecure || isLoopback(host)) {
      return null;
    }
    return "--host "
        + host
        + ": listening beyond loopback needs --auth-file (docs/security.md), or --insecure to"
        + " allow anyone who can reach the port to do anything";
  }

  /** Whether {@code host} names only this machine's loopback (127.0.0.0/8, ::1, localhost). */
  static boolean isLoopback(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return true; // the bind will say why; refusing here would hide it
    }
  }
}
