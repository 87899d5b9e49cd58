package io.semafor.server;

import io.semafor.ClientInfo;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the admin console shows, as JSON-ready maps (docs/console.md has their shapes). Every number
 * that may pass 2^53 — ids, sequences, tokens, values, amounts — is a string, since a browser reads
 * JSON numbers as doubles (a session id was shown wrong by its last digits); counts and durations
 * are numbers. a page of semaphores, one semaphore in detail, the live sessions, this node's
 * replication. Each view is read through the replicator like a client's read, so it is linearizable
 * as one, and is filtered to what the asking principal may read. Blocking (a read waits for the
 * applying thread, at most {@link #READ_TIMEOUT_SECONDS}); thread-safe.
 */
final class ConsoleViews {
  static final long READ_TIMEOUT_SECONDS = 5;

  /** Semaphores per page of the list unless the page asks for fewer (and at most this). */
  static final int MAX_PAGE = 500;

  /** Entries of each list (queue, holders, leases) one semaphore's view shows. */
  static final int DETAIL_LIMIT = 200;

  /** Sessions the sessions view shows (the first by id), with whether more exist. */
  static final int SESSIONS_SHOWN = 200;

  /** A view that cannot be read now (no leader, a read that timed out): 503. */
  static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }

  /** This node is a follower, which answers no read: 421, naming the leader's client address. */
  static final class NotLeader extends Exception {
    private static final long serialVersionUID = 1L;

    NotLeader(String message) {
      super(message);
    }
  }

  /** The principal may not read what it asked for: 403. */
  static final class Denied extends Exception {
    private static final long serialVersionUID = 1L;

    Denied(String message) {
      super(message);
    }
  }

  private final Function<Query, CompletableFuture<Reply>> read;
  private final SemaforServer server;
  private final ServerMetrics metrics;

  ConsoleViews(
      Function<Query, CompletableFuture<Reply>> read, SemaforServer server, ServerMetrics metrics) {
    this.read = read;
    this.server = server;
    this.metrics = metrics;
  }

  private Access access() {
    return server.config().security().access();
  }

  private Result ask(Query query) throws Unavailable, NotLeader, InterruptedException {
    CompletableFuture<Reply> answer;
    try {
      answer = read.apply(query);
    } catch (IllegalStateException closing) { // closed, or its state machine failed
      throw new Unavailable("this node is not serving: " + closing.getMessage());
    }
    try {
      Result result = answer.get(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS).result();
      if (result instanceof Result.Failure failure
          && failure.code() == io.semafor.ErrorCode.NOT_FOUND) {
        return result;
      }
      if (result instanceof Result.Failure failure) {
        throw new Unavailable(failure.code() + ": " + failure.message());
      }
      return result;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Edge.NotLeader notLeader) {
        throw new NotLeader(String.valueOf(notLeader.getMessage()));
      }
      throw new Unavailable(String.valueOf(e.getCause() == null ? e : e.getCause().getMessage()));
    } catch (TimeoutException e) {
      throw new Unavailable("no answer within " + READ_TIMEOUT_SECONDS + " s");
    }
  }

  /**
   * Up to {@code limit} semaphores whose names start with {@code prefix}, after {@code after}, of
   * those the principal may read: only the ranges of names it may read are read ({@link
   * io.semafor.server.security.Access#readablePrefixes}), so a page never scans, shows or points
   * past a name it may not see; {@code next} names where the next page starts.
   */
  Map<String, Object> page(Principal who, Name prefix, @Nullable Name after, int limit)
      throws Unavailable, NotLeader, InterruptedException {
    int wanted = Math.max(1, Math.min(limit, MAX_PAGE));
    List<Map<String, Object>> rows = new ArrayList<>();
    boolean more = false;
    for (Name range : ranges(prefix, access().readablePrefixes(who))) {
      // a range that ends before the page's start yields nothing; one that holds it starts there
      @Nullable Name from = after != null && after.compareTo(range) >= 0 ? after : null;
      int room = wanted - rows.size();
      Result result = ask(new Query.ListNames(range, Math.max(room, 1), from, true));
      if (!(result instanceof Result.NameList list)) {
        throw new Unavailable("unexpected answer " + result);
      }
      if (room == 0) {
        if (!list.names().isEmpty()) {
          more = true; // a later range has names: there is a next page
          break;
        }
        continue;
      }
      for (Result.SemaphoreStatus status : list.statuses()) {
        rows.add(status(status));
      }
      if (list.more()) {
        more = true;
        break;
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("prefix", text(prefix));
    out.put("after", after == null ? null : text(after));
    out.put("semaphores", rows);
    out.put("more", more);
    out.put("next", rows.isEmpty() ? null : rows.get(rows.size() - 1).get("name"));
    return out;
  }

  /**
   * The ranges of names under {@code prefix} that the prefixes in {@code readable} (in name order,
   * none under another) let one read, in name order: a readable prefix under {@code prefix}, or
   * {@code prefix} itself when a readable prefix covers it.
   */
  static List<Name> ranges(Name prefix, List<Name> readable) {
    List<Name> out = new ArrayList<>();
    for (Name r : readable) {
      if (r.startsWith(prefix)) {
        out.add(r);
      } else if (prefix.startsWith(r)) {
        out.add(prefix);
      }
    }
    return out;
  }

  /** One semaphore: its status, its queue, holders and leases (first pages), its wait histogram. */
  Map<String, Object> semaphore(Principal who, Name name)
      throws Unavailable, Denied, NotLeader, InterruptedException {
    String denied = Authorizer.deny(access(), who, new Query.Get(name));
    if (denied != null) {
      throw new Denied(denied);
    }
    Result result = ask(new Query.Inspect(name, DETAIL_LIMIT, Query.Position.START, 0));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", text(name));
    if (!(result instanceof Result.SemaphoreDetail detail)) {
      out.put("exists", false);
      return out;
    }
    long now = server.logTime();
    out.put("exists", true);
    out.put("status", status(detail.status()));
    List<Map<String, Object>> queue = new ArrayList<>();
    for (Result.WaiterView w : detail.queue()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("sequence", Long.toString(w.sequence()));
      row.put("sessionId", Long.toString(w.sessionId()));
      row.put("client", client(w.client()));
      row.put("kind", w.kind());
      row.put("amount", Long.toString(w.amount()));
      long since = metrics.waitingSince(w.sessionId(), w.requestId());
      row.put("waitingMillis", since < 0 ? null : Math.max(0, now - since) / 1_000_000);
      row.put(
          "timeoutInMillis",
          w.deadline() == Long.MAX_VALUE ? null : Math.max(0, w.deadline() - now) / 1_000_000);
      queue.add(row);
    }
    List<Map<String, Object>> holders = new ArrayList<>();
    for (Result.HolderView h : detail.holders()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("sessionId", Long.toString(h.sessionId()));
      row.put("client", client(h.client()));
      row.put("owned", Long.toString(h.owned()));
      row.put("slots", h.slots());
      holders.add(row);
    }
    List<Map<String, Object>> leases = new ArrayList<>();
    for (Result.LeaseView l : detail.leases()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("permitId", Long.toUnsignedString(l.permitId()));
      row.put("sessionId", Long.toString(l.sessionId()));
      row.put("amount", Long.toString(l.amount()));
      row.put("slots", l.slots());
      row.put("token", Long.toString(l.token()));
      row.put("leftMillis", Math.max(0, l.expiresAt() - now) / 1_000_000);
      leases.add(row);
    }
    out.put("queue", queue);
    out.put("queueMore", detail.queueMore());
    out.put("holders", holders);
    out.put("holdersMore", detail.holdersMore());
    out.put("leases", leases);
    out.put("leasesMore", detail.leasesMore());
    out.put("waitHistogram", metrics.waitHistogram(name));
    return out;
  }

  /**
   * The first {@link #SESSIONS_SHOWN} live sessions by id; without the {@code cluster} permission
   * only the principal's own (as {@code session list} does), looked for among every session, and
   * without the node's total.
   */
  Map<String, Object> sessions(Principal who) throws Unavailable, NotLeader, InterruptedException {
    boolean everyone = !access().enforced() || access().allowsCluster(who);
    long now = server.logTime();
    List<Map<String, Object>> rows = new ArrayList<>();
    boolean more = false;
    long after = 0;
    while (true) {
      Result result = ask(new Query.ListSessions(Query.ListSessions.MAX_LIMIT, after));
      if (!(result instanceof Result.SessionList list)) {
        throw new Unavailable("unexpected answer " + result);
      }
      for (Result.SessionView s : list.sessions()) {
        after = s.sessionId();
        if (!everyone && !s.principal().equals(who.name())) {
          continue;
        }
        if (rows.size() == SESSIONS_SHOWN) {
          more = true;
          break;
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("sessionId", Long.toString(s.sessionId()));
        row.put("client", client(s.client()));
        row.put("principal", s.principal());
        row.put("ttlMillis", s.ttl() / 1_000_000);
        row.put("ageMillis", Math.max(0, now - s.openedAt()) / 1_000_000);
        row.put("sinceLastRequestMillis", Math.max(0, now - s.lastSeen()) / 1_000_000);
        row.put("sinceHeardMillis", server.sinceHeardMillis(s.sessionId()));
        row.put("holdings", s.holdings());
        row.put("waiting", s.waiting());
        rows.add(row);
      }
      if (more || !list.more() || list.sessions().isEmpty()) {
        break;
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sessions", rows);
    out.put("more", more);
    out.put("total", everyone ? server.sessionCount() : null);
    return out;
  }

  /**
   * This node's view of its replication, as {@code GET /cluster} shows it (mode, role, leader,
   * members, term, indexes, and on a leader its followers), with its session and connection counts.
   */
  Map<String, Object> node() {
    Map<String, Object> out = new LinkedHashMap<>(server.replicationStatus());
    out.put("sessions", server.sessionCount());
    out.put("connections", server.connectionCount());
    return out;
  }

  private static Map<String, Object> status(Result.SemaphoreStatus s) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("name", text(s.name()));
    row.put("value", Long.toString(s.value()));
    SemaphoreOptions o = s.options();
    row.put(
        "capacity",
        o.capacity() == SemaphoreOptions.NO_CAPACITY ? null : Long.toString(o.capacity()));
    row.put("policy", o.policy().name());
    row.put("waiters", s.waiters());
    row.put("holders", s.holders());
    row.put("leases", s.leases());
    row.put("owned", Long.toString(s.owned()));
    row.put("leased", Long.toString(s.leased()));
    return row;
  }

  private static Map<String, Object> client(ClientInfo c) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", c.name());
    out.put("host", c.host());
    out.put("pid", c.pid());
    return out;
  }

  static String text(Name name) {
    return new String(name.toBytes(), StandardCharsets.UTF_8);
  }
}
