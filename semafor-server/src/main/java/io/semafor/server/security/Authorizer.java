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
      return leaseCheck(access, principal, o.name());
    } else if (op instanceof Operation.ReleaseLease o) {
      return leaseCheck(access, principal, o.name());
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

  /**
   * Renewing or releasing a lease (decision 0047): the principal that took it may, with {@code
   * acquire} on its name; any lease, with {@code release} there. Here only that one of the two is
   * held; whether the lease is the principal's own is the machine's to say ({@link #bind}).
   */
  private static @Nullable String leaseCheck(
      Access access, Principal principal, @Nullable Name name) {
    if (name == null) {
      return "name: a lease's semaphore must be named when permissions are checked (clients"
          + " since 0.1 send it)";
    }
    if (access.allows(principal, Permission.RELEASE, name)
        || access.allows(principal, Permission.ACQUIRE, name)) {
      return null;
    }
    return "permission 'acquire' (for a lease one's principal took) or 'release' (for any lease)"
        + " on "
        + name
        + " is needed; "
        + principal
        + " has neither";
  }

  /**
   * {@code op} as the machine is to apply it for {@code principal}, once {@link #deny} allowed it:
   * a lease's renewal or release by a principal without {@code release} on the lease's name is made
   * taker-only, so the machine refuses it on a lease another principal took (decision 0047). Every
   * other operation is returned as it is.
   */
  public static Operation bind(Access access, Principal principal, Operation op) {
    if (!access.enforced()) {
      return op;
    }
    if (op instanceof Operation.RenewLease o
        && o.name() != null
        && !access.allows(principal, Permission.RELEASE, o.name())) {
      return new Operation.RenewLease(o.permitId(), o.ttl(), o.name(), true);
    }
    if (op instanceof Operation.ReleaseLease o
        && o.name() != null
        && !access.allows(principal, Permission.RELEASE, o.name())) {
      return new Operation.ReleaseLease(o.permitId(), o.name(), true);
    }
    return op;
  }

  /**
   * Why {@code principal} may not do what {@code p} allows on {@code name}, as the
   * PERMISSION_DENIED message; null if it may.
   */
  public static @Nullable String deny(Access access, Principal principal, Permission p, Name name) {
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
