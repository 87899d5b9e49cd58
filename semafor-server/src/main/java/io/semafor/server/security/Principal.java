package io.semafor.server.security;

/**
 * Who a connection or an admin request was taken for.
 *
 * @param name the principal's name, as the rules name it; empty for {@link #ANONYMOUS}
 * @param how how it was established: {@code token}, {@code certificate} or {@code none}
 */
public record Principal(String name, String how) {
  /** A connection to a server that authenticates nobody: allowed everything. */
  public static final Principal ANONYMOUS = new Principal("", "none");

  /** Whether this is {@link #ANONYMOUS}. */
  public boolean isAnonymous() {
    return name.isEmpty();
  }

  /** The name, or {@code anonymous}. */
  @Override
  public String toString() {
    return isAnonymous() ? "anonymous" : name;
  }
}
