package io.semafor.server.security;

import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.core.SemopOp;
import org.jspecify.annotations.Nullable;

/**
 * Which permission each request needs on which name (docs/security.md#permissions), and the check.
 * A {@code semop} needs a permission on every name it touches: {@code acquire} where it takes,
 * {@code release} where it adds, {@code read} where it waits for zero (as SysV asks read permission
 * for a wait-for-zero and alter for the rest). Stateless and thread-safe.
 */
public final class Authorizer {
  private Authorizer() {}

  /**
   * Why {@code principal} may not make {@code op}, as the PERMISSION_DENIED message naming the
   * permission and the name; null if it may. Requests that act on the session itself (cancel,
   * close, WaitMany on entries already checked) need nothing; ending another session is decided by
   * the caller, who knows its owner.
   */
  public static @Nullable String deny(Access access, Principal principal, Operation op) {
    if (!access.enforced()) {
      return null;
    }
    if (op instanceof Operation.Semop semop) {
      for (SemopOp o : semop.ops()) {
        Permission p =
            o.delta() < 0
                ? Permission.ACQUIRE
                : o.delta() > 0 ? Permission.RELEASE : Permission.READ;
        String denied = check(access, principal, p, o.name());
        if (denied != null) {
          return denied;
        }
      }
      return null;
    }
    if (op instanceof Operation.OnOneSemaphore one) {
      return check(access, principal, needed(op), one.name());
    } else if (op instanceof Operation.RenewLease o) {
      return leaseCheck(access, principal, Permission.ACQUIRE, o.name());
    } else if (op instanceof Operation.ReleaseLease o) {
      return leaseCheck(access, principal, Permission.RELEASE, o.name());
    }
    // WaitMany (its entries were checked when added), Cancel, CloseSession, EndSession
    return null;
  }

  /**
   * The permission an operation on one semaphore needs (docs/security.md#permissions). Every kind
   * is named: a kind added later without a line here is refused loudly, not quietly given the
   * weakest permission.
   *
   * @throws IllegalArgumentException for a kind this method does not know
   */
  static Permission needed(Operation op) {
    if (op instanceof Operation.Create
        || op instanceof Operation.Delete
        || op instanceof Operation.SetValue) {
      return Permission.ADMIN;
    } else if (op instanceof Operation.Increment
        || op instanceof Operation.Release
        || op instanceof Operation.ReleaseSlot) {
      return Permission.RELEASE;
    } else if (op instanceof Operation.AwaitZero) {
      return Permission.READ;
    } else if (op instanceof Operation.Decrement
        || op instanceof Operation.Acquire
        || op instanceof Operation.AcquireLease
        || op instanceof Operation.AddToWaitMany
        || op instanceof Operation.RemoveFromWaitMany) {
      return Permission.ACQUIRE;
    }
    throw new IllegalArgumentException("no permission is defined for " + op);
  }

  /**
   * Why {@code principal} may not make {@code query}; null if it may. A {@code list} is allowed and
   * filtered to the names the principal may read ({@link #mayRead}); listing sessions is filtered
   * to the principal's own unless it has {@code cluster}.
   */
  public static @Nullable String deny(Access access, Principal principal, Query query) {
    if (!access.enforced()) {
      return null;
    }
    if (query instanceof Query.Get q) {
      return check(access, principal, Permission.READ, q.name());
    } else if (query instanceof Query.Inspect q) {
      return check(access, principal, Permission.READ, q.name());
    }
    return null; // ListNames and ListSessions are filtered instead
  }

  /** Whether {@code principal} may see {@code name} in a listing. */
  public static boolean mayRead(Access access, Principal principal, Name name) {
    return access.allows(principal, Permission.READ, name);
  }

  /** The PERMISSION_DENIED message for the node-wide {@code cluster} permission; null if held. */
  public static @Nullable String denyCluster(Access access, Principal principal, String what) {
    if (access.allowsCluster(principal)) {
      return null;
    }
    return "permission 'cluster' is needed to " + what + "; " + principal + " does not have it";
  }

  /**
   * Null when {@code principal} may see every semaphore's name, as {@code /metrics} shows them:
   * {@code read} on the empty prefix, or {@code cluster}; otherwise the PERMISSION_DENIED message.
   */
  public static @Nullable String denyEveryName(Access access, Principal principal, String what) {
    if (access.allows(principal, Permission.READ, Name.of("")) || access.allowsCluster(principal)) {
      return null;
    }
    return "permission 'read' on every name (a rule with the prefix \"\") or 'cluster' is needed"
        + " to "
        + what
        + ", which shows every semaphore's name; "
        + principal
        + " has neither";
  }

  private static @Nullable String leaseCheck(
      Access access, Principal principal, Permission p, @Nullable Name name) {
    if (name == null) {
      return "name: a lease's semaphore must be named when permissions are checked (clients"
          + " since 0.1 send it)";
    }
    return check(access, principal, p, name);
  }

  private static @Nullable String check(
      Access access, Principal principal, Permission p, Name name) {
    if (access.allows(principal, p, name)) {
      return null;
    }
    return "permission '"
        + p.word()
        + "' on "
        + name
        + " is needed; "
        + principal
        + " does not have it";
  }
}
