package io.semafor.server.security;

import java.time.Instant;

/**
 * Who a connection or an admin request was taken for.
 *
 * @param name the principal's name, as the rules name it; empty for {@link #ANONYMOUS}
 * @param how how it was established: {@code token}, {@code certificate} or {@code none}
 * @param expires when the credential stops working (a token's expiry); null: never
 */
public record Principal(
    String name, String how, @org.jspecify.annotations.Nullable Instant expires) {
  /** A principal whose credential does not expire. */
  public Principal(String name, String how) {
    this(name, how, null);
  }

  /** Whether its credential has expired at {@code now}. */
  public boolean expiredAt(Instant now) {
    Instant e = expires;
    return e != null && !now.isBefore(e);
  }

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
