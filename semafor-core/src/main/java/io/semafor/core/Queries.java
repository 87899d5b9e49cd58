package io.semafor.core;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads of the state: {@code get}, {@code inspect}, {@code list}. They change nothing in the state;
 * the only thing a read keeps is {@link #marks}, which makes the next inspection page cheaper and
 * never changes an answer. Single-threaded, as the machine is.
 */
final class Queries {
  /** The most names one {@code list} answers with; ask again with {@code after} for more. */
  static final int MAX_LIST = 10_000;

  /** A waiter queue's lists: takers, watchers, zero waiters. */
  private static final int LISTS = 3;

  /** How many queue page ends are remembered. */
  private static final int MARKS = 64;

  private final Engine engine;

  /**
   * Where recent queue pages ended, so that the next page resumes in O(1) instead of walking the
   * queue to its position: for a semaphore and the last sequence number a page showed, the last
   * node at or before it in each waiter list. Only a cache: a node that left since is noticed
   * ({@link WaiterQueue#contains}) and that list is walked instead, with the same answer.
   */
  private final LinkedHashMap<Mark, @Nullable Node[]> marks = new LinkedHashMap<>();

  /** How many queued nodes inspection pages have walked past to find where they resume, ever. */
  long walked;

  /** A semaphore (by identity: a re-created name is another) and a queue position in it. */
  private record Mark(Semaphore semaphore, long after) {}

  Queries(Engine engine) {
    this.engine = engine;
  }

  Result get(Query.Get q) {
    Semaphore s = engine.semaphores.get(q.name());
    return s == null ? engine.noSemaphore(q.name()) : status(s);
  }

  /** O(1): the holder table keeps the totals. */
  static Result.SemaphoreStatus status(Semaphore s) {
    HolderTable table = s.holders;
    long owned = table == null ? 0 : table.owned;
    long leased = table == null ? 0 : table.leased;
    return new Result.SemaphoreStatus(
        s.name(),
        s.value,
        s.options(),
        s.waiterCount(),
        table == null ? 0 : table.owners,
        table == null ? 0 : table.leases.size(),
        owned,
        leased,
        s.outstanding - owned - leased);
  }

  /**
   * One page of {@code inspect}. What it costs, with {@code P} the entries it shows: the queue
   * resumes in O(1) from the node where the previous page stopped (see {@link #marks}), or walks
   * from the head of each waiter list when that node has left meanwhile or the position is not one
   * a recent page ended at; holders and leases resume in O(log n) from their sorted maps; then
   * O(P).
   */
  Result inspect(Query.Inspect q) {
    Semaphore s = engine.semaphores.get(q.name());
    if (s == null) {
      return engine.noSemaphore(q.name());
    }
    Result.Failure bad = checkPage(q);
    if (bad != null) {
      return bad;
    }
    int limit =
        q.limit() == 0 ? Query.Inspect.DEFAULT_LIMIT : Math.min(q.limit(), Query.Inspect.MAX_LIMIT);
    Budget budget =
        new Budget(q.budgetBytes() == 0 ? Query.Inspect.DEFAULT_BUDGET_BYTES : q.budgetBytes());
    Query.Position from = q.from();

    List<Result.WaiterView> queue = new ArrayList<>();
    long queueNext = from.queue();
    boolean queueMore = false;
    WaiterQueue waiters = s.queue;
    // No waiter arrived after the newest sequence number: a reader skips a list it has finished
    // by asking after 2^63-1, which costs nothing here.
    if (waiters != null && from.queue() < engine.lastSeq) {
      @Nullable Node[] before = resume(s, waiters, from.queue());
      @Nullable Node[] at = new Node[LISTS];
      for (int i = 0; i < LISTS; i++) {
        Node anchor = before[i];
        Node n = anchor == null ? head(waiters, i) : anchor.next;
        while (n != null && n.waiter().seq <= from.queue()) { // only when walking from a head
          before[i] = n;
          n = n.next;
          walked++;
        }
        at[i] = n;
      }
      for (int i = earliest(at); i >= 0; i = earliest(at)) {
        Node n = at[i];
        Waiter w = n.waiter();
        String kind = w.kind();
        if (queue.size() == limit
            || !budget.admit(
                Query.Inspect.WAITER_BYTES
                    + kind.length()
                    + Query.Inspect.clientBytes(w.session.client))) {
          queueMore = true;
          break;
        }
        long deadline = w.deadline == Waiter.NO_DEADLINE ? -1 : w.deadline;
        queue.add(
            new Result.WaiterView(
                w.session.id,
                w.requestId,
                w.seq,
                kind,
                amountOn(w, s),
                deadline,
                w.session.client));
        queueNext = w.seq;
        before[i] = n;
        at[i] = n.next;
      }
      remember(s, queueNext, before);
    }

    List<Result.HolderView> holders = new ArrayList<>();
    long holdersNext = from.holders();
    boolean holdersMore = false;
    List<Result.LeaseView> leases = new ArrayList<>();
    long leasesNext = from.leases();
    boolean leasesMore = false;
    HolderTable table = s.holders;
    if (table != null) {
      // A holding that owns nothing (it only waits for owned permits) is passed, not shown; it
      // still counts against the limit so that a page's work stays bounded.
      int passed = 0;
      for (Holding h : table.holdings.tailMap(from.holders(), false).values()) {
        if (passed == limit
            || (h.adjustment != 0
                && !budget.admit(
                    Query.Inspect.HOLDER_BYTES
                        + Query.Inspect.SLOT_BYTES * h.slotCount()
                        + Query.Inspect.clientBytes(h.session.client)))) {
          holdersMore = true;
          break;
        }
        if (h.adjustment != 0) {
          holders.add(
              new Result.HolderView(h.session.id, h.adjustment, h.slots(), h.session.client));
        }
        holdersNext = h.session.id;
        passed++;
      }
      for (Lease lease : table.leases.tailMap(from.leases(), false).values()) {
        if (leases.size() == limit
            || !budget.admit(
                Query.Inspect.LEASE_BYTES + Query.Inspect.SLOT_BYTES * lease.slots.length)) {
          leasesMore = true;
          break;
        }
        Session to = lease.undeliveredTo;
        leases.add(
            new Result.LeaseView(
                lease.permitId,
                to == null ? 0 : to.id,
                lease.amount,
                Grants.boxed(lease.slots),
                lease.token,
                lease.grantedAt,
                lease.expiresAt));
        leasesNext = lease.permitId;
      }
    }
    return new Result.SemaphoreDetail(
        status(s),
        queue,
        holders,
        leases,
        new Query.Position(queueNext, holdersNext, leasesNext),
        queueMore,
        holdersMore,
        leasesMore);
  }

  private static Result.@Nullable Failure checkPage(Query.Inspect q) {
    if (q.limit() < 0) {
      return Check.invalid("limit", "must be 0 (the default) or positive, was " + q.limit());
    }
    if (q.budgetBytes() < 0) {
      return Check.invalid(
          "budgetBytes", "must be 0 (the default) or positive, was " + q.budgetBytes());
    }
    Query.Position from = q.from();
    if (from.queue() < 0 || from.holders() < 0 || from.leases() < 0) {
      return Check.invalid(
          "after", "positions are sequence numbers and ids below 2^63, was " + from);
    }
    return null;
  }

  /**
   * Where a queue page starting after {@code after} begins: for each waiter list, the last node at
   * or before {@code after} if a recent page ended there and that node is still queued, else null
   * (the list is then walked from its head).
   */
  private @Nullable Node[] resume(Semaphore s, WaiterQueue waiters, long after) {
    @Nullable Node[] before = new Node[LISTS];
    @Nullable Node[] mark = marks.get(new Mark(s, after));
    if (mark != null) {
      for (int i = 0; i < LISTS; i++) {
        Node anchor = mark[i];
        before[i] = anchor != null && waiters.contains(anchor) ? anchor : null;
      }
    }
    return before;
  }

  /**
   * Remembers where a queue page ended, replacing the least recently remembered end past {@link
   * #MARKS}. A list whose remembered node was null had no node at or before {@code after}; since
   * sequence numbers only grow, none can appear, so the next page starts at its head.
   */
  private void remember(Semaphore s, long after, @Nullable Node[] before) {
    Mark key = new Mark(s, after);
    marks.remove(key);
    marks.put(key, before);
    if (marks.size() > MARKS) {
      Iterator<Mark> eldest = marks.keySet().iterator();
      eldest.next();
      eldest.remove();
    }
  }

  private static @Nullable Node head(WaiterQueue waiters, int list) {
    return switch (list) {
      case 0 -> waiters.firstTaker();
      case 1 -> waiters.firstWatcher();
      default -> waiters.firstZero();
    };
  }

  /** The list whose next node arrived first, or -1 if every list is done. */
  private static int earliest(@Nullable Node[] at) {
    int best = -1;
    long bestSeq = Long.MAX_VALUE;
    for (int i = 0; i < LISTS; i++) {
      Node n = at[i];
      if (n != null && n.waiter().seq < bestSeq) {
        best = i;
        bestSeq = n.waiter().seq;
      }
    }
    return best;
  }

  /** How many encoded bytes a page's entries may still take; the first entry always fits. */
  private static final class Budget {
    private long left;
    private boolean empty = true;

    Budget(long bytes) {
      this.left = bytes;
    }

    boolean admit(long bytes) {
      if (!empty && bytes > left) {
        return false;
      }
      left -= bytes;
      empty = false;
      return true;
    }
  }

  /**
   * What a waiter asks of this semaphore: its amount, or for a semop the sum of its deltas here.
   */
  private static long amountOn(Waiter w, Semaphore s) {
    if (w instanceof SemopWaiter semop) {
      long sum = 0;
      for (int i = 0; i < semop.plan.size(); i++) {
        if (semop.plan.semaphores[i].equals(s)) {
          sum += semop.plan.deltas[i];
        }
      }
      return sum;
    }
    return w.amount();
  }

  /** A page of live sessions in id order: O(log n + page) through the ordered ids. */
  Result sessions(Query.ListSessions q) {
    if (q.limit() < 1 || q.limit() > Query.ListSessions.MAX_LIMIT) {
      return Check.invalid(
          "limit", "must be 1.." + Query.ListSessions.MAX_LIMIT + ", was " + q.limit());
    }
    List<Result.SessionView> page = new ArrayList<>();
    boolean more = false;
    for (long id : engine.sessionIds.tailSet(q.after(), false)) {
      if (page.size() == q.limit()) {
        more = true;
        break;
      }
      Session s = engine.sessions.get(id);
      if (s == null) {
        continue;
      }
      page.add(
          new Result.SessionView(
              s.id,
              s.client,
              s.owner.principal(),
              s.ttl,
              s.openedAt,
              s.lastSeen,
              s.holdings.size(),
              s.waiting,
              s.unacked));
    }
    return new Result.SessionList(page, more);
  }

  /**
   * One page of names: O(log n) to find where it starts in the name order, then O(1) per name
   * shown, plus one step past the last to see that it ends.
   */
  Result list(Query.ListNames q) {
    if (q.limit() < 1 || q.limit() > MAX_LIST) {
      return Check.invalid("limit", "must be 1.." + MAX_LIST + ", was " + q.limit());
    }
    Name prefix = q.prefix();
    Name after = q.after();
    // Every name with the prefix sorts at or after the prefix itself, so a cursor before the
    // prefix starts the page at the prefix.
    byte[] start = prefix.bytes();
    boolean inclusive = true;
    if (after != null && after.compareTo(prefix) >= 0) {
      start = after.bytes();
      inclusive = false;
    }
    List<Name> names = new ArrayList<>(Math.min(q.limit(), 64));
    List<Result.SemaphoreStatus> statuses = new ArrayList<>();
    long[] counted = {0};
    boolean[] more = {false};
    engine
        .semaphores
        .order()
        .visitFrom(
            start,
            inclusive,
            s -> {
              Name name = s.name();
              if (!name.startsWith(prefix)) {
                return false; // past the names with the prefix: they are contiguous
              }
              int bytes =
                  Query.ListNames.NAME_BYTES
                      + name.length()
                      + (q.withStatus() ? Query.ListNames.STATUS_BYTES + name.length() : 0);
              if (names.size() == q.limit()
                  || (!names.isEmpty() && counted[0] + bytes > Query.ListNames.BUDGET_BYTES)) {
                more[0] = true; // one step past the page: another name follows
                return false;
              }
              counted[0] += bytes;
              names.add(name);
              if (q.withStatus()) {
                statuses.add(status(s));
              }
              return true;
            });
    return new Result.NameList(names, statuses, more[0]);
  }
}
