package io.semafor.server.security;

import java.util.Locale;

/**
 * What a principal may do to the semaphores under a name prefix (docs/security.md#permissions). A
 * request needs one permission per name it touches; {@link #CLUSTER} is node-wide.
 */
public enum Permission {
  /** {@code get}, {@code inspect}, {@code list}, {@code watch}, and waiting for zero. */
  READ,
  /**
   * Taking permits: acquire, decrement, leases, semop takes, WaitMany; renewing and releasing a
   * lease one's own principal took (decision 0047).
   */
  ACQUIRE,
  /**
   * Giving permits: increment, release, semop adds; renewing or releasing any lease, whoever took
   * it (decision 0047).
   */
  RELEASE,
  /** Changing a semaphore itself: create, delete, set. */
  ADMIN,
  /** The node and the cluster: membership, snapshots, every session, reloading these rules. */
  CLUSTER;

  /** The name used in rules and in errors: {@code read}, {@code acquire}, … */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The permission named {@code word} in a rule, or null if none is. */
  static @org.jspecify.annotations.Nullable Permission of(String word) {
    for (Permission p : values()) {
      if (p.word().equals(word)) {
        return p;
      }
    }
    return null;
  }
}
