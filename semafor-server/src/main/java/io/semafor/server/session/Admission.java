package io.semafor.server.session;

import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Watch;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import io.semafor.server.wire.WireAudit;
import io.semafor.server.wire.WireRequests;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What of each frame a session's client sends goes on to the node, once {@link ServerSession} has
 * placed it (its session, its principal): requests and reads checked and refused with a code that
 * names the argument, permissions checked under the rules in force and each refusal audited,
 * keep-alives' pongs held behind their acknowledgements, watches validated and bounded. Not
 * thread-safe: part of a {@link ServerSession}.
 */
final class Admission {
  private final SessionRules rules;
  private final NodeView node;
  private final Effects effects;
  private final Backlog backlog;
  private final OwedPongs owedPongs = new OwedPongs();

  /** The watches started on this connection so far. */
  private long starts;

  /** The running watches by id. */
  private final Map<Long, WatchRequest> watches = new HashMap<>();

  Admission(SessionRules rules, NodeView node, Effects effects, Backlog backlog) {
    this.rules = rules;
    this.node = node;
    this.effects = effects;
    this.backlog = backlog;
  }

  /** A request of session {@code sessionId}, from {@code who} (null: no principal yet). */
  void request(Request request, long sessionId, @Nullable Principal who) {
    Principal asker = who == null ? Principal.ANONYMOUS : who;
    Operation op;
    try {
      op = WireRequests.operation(request);
    } catch (WireRequests.Malformed e) {
      refuse(sessionId, request, ErrorCode.INVALID_ARGUMENT, e.reason());
      return;
    }
    Access access = node.access();
    String denied = denial(access, asker, op);
    if (denied != null) {
      effects.audit(WireAudit.describe(op), asker, "PERMISSION_DENIED: " + denied);
      refuse(sessionId, request, ErrorCode.PERMISSION_DENIED, denied);
      return;
    }
    op = Authorizer.bind(access, asker, op);
    effects.add(
        new ServerEffect.SubmitRequest(
            new Command.Request(sessionId, request.getId(), request.getAcksList(), op),
            WireAudit.audited(op) ? WireAudit.describe(op) : null));
  }

  /**
   * Answers a request refused here, before the node: the acknowledgements it carried are applied
   * first, as they would have been with the request, and the answer goes out after them.
   */
  private void refuse(long sessionId, Request request, ErrorCode code, String message) {
    ServerFrame answer = SessionFrames.responseFailure(request.getId(), code, message);
    if (request.getAcksCount() == 0) {
      effects.send(answer);
      return;
    }
    effects.add(
        new ServerEffect.Acknowledge(
            new Command.Acknowledge(sessionId, request.getAcksList()), answer));
  }

  /** Why {@code who} may not make {@code op}; null if it may. */
  private @Nullable String denial(Access access, Principal who, Operation op) {
    String denied = Authorizer.deny(access, who, op);
    if (denied == null && access.enforced() && op instanceof Operation.EndSession end) {
      // one's own sessions may be ended; another principal's only with cluster
      NodeView.LiveSession target = node.session(end.sessionId());
      if (target == null || !target.owner().principal().equals(who.name())) {
        denied = Authorizer.denyCluster(access, who, "end another principal's session");
      }
    }
    return denied;
  }

  /**
   * A keep-alive of session {@code sessionId}. One that carries acknowledgements (or asks for a
   * sync) is answered once they are applied; one with an id is answered by that id alone, one
   * without in the order of the keep-alives.
   */
  void keepAlive(KeepAlive keepAlive, long sessionId) {
    boolean confirm = keepAlive.getAcksCount() > 0 || keepAlive.getSync();
    if (keepAlive.getId() != 0) {
      // the client pairs pongs by id: only this keep-alive's own pong waits
      ServerFrame pong = SessionFrames.pong(keepAlive.getId());
      if (confirm) {
        effects.add(
            new ServerEffect.Acknowledge(
                new Command.Acknowledge(sessionId, keepAlive.getAcksList()), pong));
      } else {
        effects.send(pong);
      }
      return;
    }
    if (!confirm) {
      if (owedPongs.plain()) {
        effects.send(SessionFrames.PONG);
      }
      return;
    }
    owedPongs.hold();
    effects.add(
        new ServerEffect.Acknowledge(
            new Command.Acknowledge(sessionId, keepAlive.getAcksList()), null));
  }

  /** The oldest held keep-alive's acknowledgements were applied: its pongs go. */
  void pongsOwed() {
    for (int i = owedPongs.applied(); i > 0; i--) {
      effects.send(SessionFrames.PONG);
    }
  }

  /** A read, from {@code who} (null: no {@code Hello} yet). */
  void read(Read read, @Nullable Principal who) {
    if (!authenticated(who, "read")) {
      return;
    }
    Query query;
    try {
      query = WireRequests.query(read, rules.maxFrameBytes());
    } catch (WireRequests.Malformed e) {
      effects.send(SessionFrames.readFailure(read.getId(), ErrorCode.INVALID_ARGUMENT, e.reason()));
      return;
    }
    String denied = Authorizer.deny(node.access(), orAnonymous(who), query);
    if (denied != null) {
      effects.send(SessionFrames.readFailure(read.getId(), ErrorCode.PERMISSION_DENIED, denied));
      return;
    }
    backlog.readStarted();
    effects.add(new ServerEffect.Read(read.getId(), query));
  }

  /** A watch asked for by {@code who} (null: no {@code Hello} yet). */
  void watch(Watch w, @Nullable Principal who) {
    if (!authenticated(who, "watch")) {
      return;
    }
    long id = w.getId();
    Name name = Name.ofBytes(w.getName().toByteArray());
    String invalid = WatchChecks.invalid(w, name, rules.maxNameBytes(), watches.containsKey(id));
    if (invalid != null) {
      effects.send(SessionFrames.watchFailed(id, ErrorCode.INVALID_ARGUMENT, invalid));
      return;
    }
    if (watches.size() >= ServerSession.MAX_WATCHES) {
      effects.send(
          SessionFrames.watchFailed(
              id,
              ErrorCode.RESOURCE_EXHAUSTED,
              "maxWatches: this connection already runs "
                  + ServerSession.MAX_WATCHES
                  + " watches"));
      return;
    }
    // read on the name, or on the whole prefix (grants are by prefix): a list is filtered by
    // permission instead of refused, which a watch's states are not
    String denied = Authorizer.deny(node.access(), orAnonymous(who), new Query.Get(name));
    if (denied != null) {
      effects.send(SessionFrames.watchFailed(id, ErrorCode.PERMISSION_DENIED, denied));
      return;
    }
    WatchRequest request =
        new WatchRequest(
            id,
            name,
            w.getPrefix(),
            w.getAfterRevision(),
            w.getLimit() == 0 ? ServerSession.DEFAULT_WATCH_LIMIT : w.getLimit(),
            w.getSummary(),
            ++starts);
    watches.put(id, request);
    backlog.readStarted();
    effects.add(new ServerEffect.StartWatch(request));
  }

  void unwatch(long id) {
    if (watches.remove(id) != null) {
      effects.add(new ServerEffect.StopWatch(id));
    }
  }

  /** The node ended the watch {@code id}. */
  void watchEnded(long id) {
    watches.remove(id);
  }

  boolean watching(WatchRequest watch) {
    return watch.equals(watches.get(watch.id()));
  }

  int watchCount() {
    return watches.size();
  }

  void disconnected() {
    watches.clear();
  }

  /** A snapshot asked for by {@code who}: with enforced rules, only with {@code cluster}. */
  void snapshot(long id, @Nullable Principal who) {
    Access access = node.access();
    if (access.enforced()) {
      if (!authenticated(who, "snapshot")) {
        return;
      }
      String denied = Authorizer.denyCluster(access, orAnonymous(who), "take a snapshot");
      effects.audit(
          "snapshot", orAnonymous(who), denied == null ? "ok" : "PERMISSION_DENIED: " + denied);
      if (denied != null) {
        effects.send(SessionFrames.snapshotFailure(id, ErrorCode.PERMISSION_DENIED, denied));
        return;
      }
    }
    backlog.readStarted();
    effects.add(new ServerEffect.Snapshot(id));
  }

  /**
   * Whether a frame that needs no session may go on: with enforced rules, only after a {@code
   * Hello} authenticated the connection (else it closes, UNAUTHENTICATED).
   */
  private boolean authenticated(@Nullable Principal who, String what) {
    if (who == null && node.access().enforced()) {
      effects.fatal(
          ErrorCode.UNAUTHENTICATED, what + ": a connection begins with Hello and its credentials");
      return false;
    }
    return true;
  }

  private static Principal orAnonymous(@Nullable Principal who) {
    return who == null ? Principal.ANONYMOUS : who;
  }
}
