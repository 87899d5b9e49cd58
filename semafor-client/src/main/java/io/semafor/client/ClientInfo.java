package io.semafor.client;

/**
 * Who a session's client said it is when it connected: its name ({@link
 * SemaforClient.Builder#clientName}), host and process id. What the client reported, not verified.
 *
 * @param name the client's name; empty if it gave none
 * @param host its host name; empty if it gave none
 * @param pid its process id; 0 if it gave none
 */
public record ClientInfo(String name, String host, long pid) {
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
