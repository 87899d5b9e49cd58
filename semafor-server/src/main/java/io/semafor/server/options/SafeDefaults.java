package io.semafor.server.options;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;

/**
 * The safe default (docs/security.md#safe-defaults): a server reachable from other machines
 * encrypts its ports and authenticates its clients, unless the operator says {@code --insecure}.
 * Loopback needs nothing, so the quick start stays one line. Stateless.
 */
final class SafeDefaults {
  private SafeDefaults() {}

  /**
   * Why a server may not listen on {@code host} as configured; null if it may.
   *
   * @param authenticated whether an auth file is in force
   * @param encrypted whether the ports speak TLS
   * @param insecure whether the operator allowed it anyway
   */
  static @Nullable String refusal(
      String host, boolean authenticated, boolean encrypted, boolean insecure) {
    if ((authenticated && encrypted) || insecure || isLoopback(host)) {
      return null;
    }
    String missing =
        authenticated
            ? "--tls-cert and --tls-key"
            : encrypted ? "--auth-file" : "--tls-cert," + " --tls-key and --auth-file";
    return "--host "
        + host
        + ": listening beyond loopback needs "
        + missing
        + " (docs/security.md), or --insecure to let anyone who can reach the port read and"
        + " change everything in plain text";
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
