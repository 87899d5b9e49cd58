package io.semafor.server.wire;

import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
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
public final class WireAudit {
  private WireAudit() {}

  /**
   * Whether {@code op} changes a semaphore's existence or value, or another session's life: the
   * changes the audit log records with their outcome (docs/security.md#audit).
   */
  public static boolean audited(Operation op) {
    return op instanceof Operation.Create
        || op instanceof Operation.Delete
        || op instanceof Operation.SetValue
        || op instanceof Operation.EndSession;
  }

  /** A short description of {@code op} for the audit log: its kind and what it names. */
  public static String describe(Operation op) {
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
    if (op instanceof Operation.OnOneSemaphore one) {
      return one.name();
    } else if (op instanceof Operation.RenewLease o) {
      return o.name();
    } else if (op instanceof Operation.ReleaseLease o) {
      return o.name();
    }
    return null;
  }

  /**
   * {@code reply} as {@code principal} may see it: a listing keeps only the names it may read (with
   * their statuses), a session list only its own sessions unless it has {@code cluster}. Anything
   * else is returned as is (it was checked before it was read).
   */
  public static Reply visible(Access access, Principal principal, Reply reply) {
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

  /**
   * The next page to read instead of answering {@code reply}, when it is a page of a listing that
   * holds nothing {@code principal} may see but says more follow: the client pages on from the last
   * entry it was shown, and an empty page would give it nowhere to go on from. Null when the page
   * can be answered.
   */
  public static @org.jspecify.annotations.Nullable Query nextPageIfNothingVisible(
      Access access, Principal principal, Query query, Reply reply) {
    Result result = reply.result();
    if (query instanceof Query.ListNames q
        && result instanceof Result.NameList list
        && list.more()
        && !list.names().isEmpty()) {
      for (Name name : list.names()) {
        if (Authorizer.mayRead(access, principal, name)) {
          return null;
        }
      }
      Name last = list.names().get(list.names().size() - 1);
      return new Query.ListNames(q.prefix(), q.limit(), last, q.withStatus());
    }
    if (query instanceof Query.ListSessions q
        && result instanceof Result.SessionList list
        && list.more()
        && !list.sessions().isEmpty()
        && !access.allowsCluster(principal)) {
      for (Result.SessionView s : list.sessions()) {
        if (s.principal().equals(principal.name())) {
          return null;
        }
      }
      return new Query.ListSessions(
          q.limit(), list.sessions().get(list.sessions().size() - 1).sessionId());
    }
    return null;
  }

  private static Reply withResult(Reply reply, Result result) {
    return new Reply(reply.sessionId(), reply.requestId(), reply.revision(), result);
  }
}
