package io.semafor;

/**
 * Who a session's client says it is, from its {@code Hello}: a name ({@code semafor-cli}, an
 * application's own), the host it runs on and its process id. Shown by {@code inspect}, {@code
 * session list} and the admin endpoint, so an operator can tell which process holds a permit. It is
 * what the client reported, not verified: identity for humans, not for access control. The state
 * machine refuses a name or host longer than {@link #MAX_BYTES} and a negative pid.
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
