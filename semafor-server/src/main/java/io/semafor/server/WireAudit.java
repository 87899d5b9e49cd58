package io.semafor.server;

import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.util.ArrayList;
import java.util.List;

/**
 * What the audit log says of a request, which requests it records, and the part of a listing a
 * principal may see. Stateless and thread-safe.
 */
final class WireAudit {
  private WireAudit() {}

  /**
   * Whether {@code op} changes a semaphore's existence or value, or another session's life: the
   * changes the audit log records with their outcome (docs/security.md#audit).
   */
  static boolean audited(Operation op) {
    return op instanceof Operation.Create
        || op instanceof Operation.Delete
        || op instanceof Operation.SetValue
        || op instanceof Operation.EndSession;
  }

  /** A short description of {@code op} for the audit log: its kind and what it names. */
  static String describe(Operation op) {
    if (op instanceof Operation.Create o) {
      return "create " + o.name();
    } else if (op instanceof Operation.Delete o) {
      return "delete " + o.name();
    } else if (op instanceof Operation.SetValue o) {
      return "set " + o.name() + " " + o.value();
    } else if (op instanceof Operation.EndSession o) {
      return "end session " + o.sessionId();
    }
    String kind = op.getClass().getSimpleName();
    Name name = nameOf(op);
    return name == null ? kind : kind + " " + name;
  }

  private static @org.jspecify.annotations.Nullable Name nameOf(Operation op) {
    if (op instanceof Operation.Increment o) {
      return o.name();
    } else if (op instanceof Operation.Decrement o) {
      return o.name();
    } else if (op instanceof Operation.Acquire o) {
      return o.name();
    } else if (op instanceof Operation.AcquireLease o) {
      return o.name();
    } else if (op instanceof Operation.Release o) {
      return o.name();
    } else if (op instanceof Operation.ReleaseSlot o) {
      return o.name();
    } else if (op instanceof Operation.AwaitZero o) {
      return o.name();
    } else if (op instanceof Operation.RenewLease o) {
      return o.name();
    } else if (op instanceof Operation.ReleaseLease o) {
      return o.name();
    } else if (op instanceof Operation.AddToWaitMany o) {
      return o.name();
    } else if (op instanceof Operation.RemoveFromWaitMany o) {
      return o.name();
    }
    return null;
  }

  /**
   * {@code reply} as {@code principal} may see it: a listing keeps only the names it may read (with
   * their statuses), a session list only its own sessions unless it has {@code cluster}. Anything
   * else is returned as is (it was checked before it was read).
   */
  static Reply visible(Access access, Principal principal, Reply reply) {
    Result result = reply.result();
    if (result instanceof Result.NameList list) {
      boolean withStatus = !list.statuses().isEmpty();
      List<Name> names = new ArrayList<>(list.names().size());
      List<Result.SemaphoreStatus> statuses = new ArrayList<>(list.statuses().size());
      for (int i = 0; i < list.names().size(); i++) {
        Name name = list.names().get(i);
        if (Authorizer.mayRead(access, principal, name)) {
          names.add(name);
          if (withStatus) {
            statuses.add(list.statuses().get(i));
          }
        }
      }
      return withResult(reply, new Result.NameList(names, statuses, list.more()));
    }
    if (result instanceof Result.SessionList list && !access.allowsCluster(principal)) {
      List<Result.SessionView> own = new ArrayList<>();
      for (Result.SessionView s : list.sessions()) {
        if (s.principal().equals(principal.name())) {
          own.add(s);
        }
      }
      return withResult(reply, new Result.SessionList(own, list.more()));
    }
    return reply;
  }

  private static Reply withResult(Reply reply, Result result) {
    return new Reply(reply.sessionId(), reply.requestId(), reply.revision(), result);
  }
}
