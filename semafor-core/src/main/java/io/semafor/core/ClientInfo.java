package io.semafor.core;

import java.nio.charset.StandardCharsets;

/**
 * Who a session's client says it is, from its {@code Hello}: a name ({@code semafor-cli}, an
 * application's own), the host it runs on and its process id. Shown by {@code inspect}, {@code
 * session list} and the admin endpoint, so an operator can tell which process holds a permit. It is
 * what the client reported, not verified: identity for humans, not for access control.
 *
 * @param name the client's name; empty if it gave none
 * @param host the client's host name; empty if it gave none
 * @param pid the client's process id; 0 if it gave none
 */
public record ClientInfo(String name, String host, long pid) {
  /** A client that said nothing about itself. */
  public static final ClientInfo NONE = new ClientInfo("", "", 0);

  /** The most UTF-8 bytes a name or a host may have. */
  public static final int MAX_BYTES = 255;

  /** Checks nothing: {@link SessionCommands} refuses values out of range with a failure. */
  public ClientInfo {}

  /**
   * Why this cannot be kept, or null if it can: a field longer than {@link #MAX_BYTES}, a pid < 0.
   */
  Result.@org.jspecify.annotations.Nullable Failure check() {
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      return Check.invalid("clientName", "longer than " + MAX_BYTES + " bytes");
    }
    if (host.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      return Check.invalid("clientHost", "longer than " + MAX_BYTES + " bytes");
    }
    if (pid < 0) {
      return Check.invalid("clientPid", "must not be negative, was " + pid);
    }
    return null;
  }

  /** {@code name on host, pid N}, leaving out what the client did not say; {@code ?} if nothing. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(name.isEmpty() ? "?" : name);
    if (!host.isEmpty()) {
      s.append(" on ").append(host);
    }
    if (pid != 0) {
      s.append(", pid ").append(pid);
    }
    return s.toString();
  }
}
