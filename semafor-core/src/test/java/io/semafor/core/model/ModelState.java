package io.semafor.core.model;

import io.semafor.Policy;
import io.semafor.core.Name;
import io.semafor.core.Reply;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The reference model's state: plain objects, plain lists. Nothing here is kept up to date
 * incrementally that could instead be computed by scanning: outstanding amounts, slots in use,
 * waiter counts and hold-backs are all derived on demand.
 */
final class ModelState {
  static final long NO_DEADLINE = Long.MAX_VALUE;

  long revision;
  long now;
  long seq;
  long token;
  long sessionIds;
  long permitIds;
  final Map<Name, Sem> sems = new LinkedHashMap<>();
  final TreeMap<Long, Ses> sessions = new TreeMap<>();
  final TreeMap<Long, Lease> leases = new TreeMap<>();

  /** Every queued waiter, in arrival order (appending keeps it sorted). */
  final List<W> waiters = new ArrayList<>();

  static final class Sem {
    final Name name;
    long value;
    final long capacity; // 0: none
    final Policy policy;
    final int maxPerSession;
    final boolean slotted;
    boolean deleted;

    Sem(Name name, long value, long capacity, Policy policy, int maxPerSession, boolean slotted) {
      this.name = name;
      this.value = value;
      this.capacity = capacity;
      this.policy = policy;
      this.maxPerSession = maxPerSession;
      this.slotted = slotted;
    }

    long ceiling() {
      return capacity == 0 ? Long.MAX_VALUE : capacity;
    }

    @Override
    public String toString() {
      return name.toString();
    }
  }

  static final class Ses {
    final long id;
    final long ttl;
    long lastSeen;
    long lastRequestId;
    final TreeMap<Long, Object> requests = new TreeMap<>(); // W or Done
    final Map<Sem, Hold> holds = new LinkedHashMap<>();
    final TreeMap<Long, WList> lists = new TreeMap<>();
    int unacked;

    Ses(long id, long ttl, long lastSeen) {
      this.id = id;
      this.ttl = ttl;
      this.lastSeen = lastSeen;
    }
  }

  static final class Hold {
    long adj;
    final List<Long> slots = new ArrayList<>();
  }

  /** A reply kept until acknowledged, with what it hands over. */
  static final class Done {
    final Reply reply;
    final List<Sem> sems;
    final List<Long> amounts;
    final @Nullable Lease lease;

    Done(Reply reply, List<Sem> sems, List<Long> amounts, @Nullable Lease lease) {
      this.reply = reply;
      this.sems = sems;
      this.amounts = amounts;
      this.lease = lease;
    }
  }

  static final class Lease {
    final long id;
    final Sem sem;
    final long amount;
    final List<Long> slots;
    final long token;
    final long grantedAt;
    long expiresAt;
    @Nullable Ses undeliveredTo;

    Lease(
        long id,
        Sem sem,
        long amount,
        List<Long> slots,
        long token,
        long grantedAt,
        long expiresAt,
        Ses undeliveredTo) {
      this.id = id;
      this.sem = sem;
      this.amount = amount;
      this.slots = slots;
      this.token = token;
      this.grantedAt = grantedAt;
      this.expiresAt = expiresAt;
      this.undeliveredTo = undeliveredTo;
    }
  }

  static final class WList {
    final long id;
    final List<Entry> entries = new ArrayList<>();
    long nextOrdinal = 1;
    long lastReported;
    @Nullable W call;

    WList(long id) {
      this.id = id;
    }
  }

  static final class Entry {
    final Sem sem;
    final long ordinal;
    long granted;
    long token;
    @Nullable W pending;
    boolean deleted;

    Entry(Sem sem, long ordinal) {
      this.sem = sem;
      this.ordinal = ordinal;
    }
  }

  enum Kind {
    DECREMENT,
    ACQUIRE,
    LEASE,
    ZERO,
    SEMOP,
    ENTRY,
    CALL
  }

  record Op(Sem sem, long delta, boolean noWait, boolean owned) {}

  static final class W {
    final Kind kind;
    final Ses ses;
    final long requestId;
    final long seq;
    final long deadline;
    final @Nullable Sem sem;
    long amount;
    final boolean owned;
    final long leaseTtl;
    final @Nullable Entry entry;
    final List<Op> ops;
    final @Nullable WList list;

    static W single(
        Kind kind,
        Ses ses,
        long id,
        long seq,
        long deadline,
        Sem sem,
        long amount,
        boolean owned,
        long leaseTtl) {
      return new W(
          kind, ses, id, seq, deadline, sem, amount, owned, leaseTtl, null, List.of(), null);
    }

    static W entry(Ses ses, long seq, Sem sem, long amount, Entry entry) {
      return new W(
          Kind.ENTRY, ses, 0, seq, NO_DEADLINE, sem, amount, false, 0, entry, List.of(), null);
    }

    static W semop(Ses ses, long id, long seq, long deadline, List<Op> ops) {
      return new W(Kind.SEMOP, ses, id, seq, deadline, null, 0, false, 0, null, ops, null);
    }

    static W call(Ses ses, long id, long seq, long deadline, WList list) {
      return new W(Kind.CALL, ses, id, seq, deadline, null, 0, false, 0, null, List.of(), list);
    }

    private W(
        Kind kind,
        Ses ses,
        long requestId,
        long seq,
        long deadline,
        @Nullable Sem sem,
        long amount,
        boolean owned,
        long leaseTtl,
        @Nullable Entry entry,
        List<Op> ops,
        @Nullable WList list) {
      this.kind = kind;
      this.ses = ses;
      this.requestId = requestId;
      this.seq = seq;
      this.deadline = deadline;
      this.sem = sem;
      this.amount = amount;
      this.owned = owned;
      this.leaseTtl = leaseTtl;
      this.entry = entry;
      this.ops = ops;
      this.list = list;
    }

    /** Whether this waiter names {@code s} at all. */
    boolean involves(Sem s) {
      if (kind == Kind.SEMOP) {
        return ops.stream().anyMatch(o -> o.sem() == s);
      }
      return sem == s;
    }

    /** Whether it takes from {@code s} all-or-nothing: what holds back later takers under FIFO. */
    boolean takesAllFrom(Sem s) {
      return switch (kind) {
        case ACQUIRE, LEASE -> sem == s;
        case SEMOP -> ops.stream().anyMatch(o -> o.sem() == s && o.delta() < 0);
        default -> false;
      };
    }
  }
}
