package io.semafor.core;

import io.semafor.ClientInfo;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import java.io.DataInput;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Rebuilds an {@link Engine} from what {@link SnapshotWriter} wrote. */
final class SnapshotReader {
  /** The smallest table a {@link SemaphoreIndex} has. */
  private static final int MIN_TABLE = 16;

  /** The most elements a count read from the snapshot makes room for before they are read. */
  private static final int PREALLOCATED = 1024;

  /**
   * The most operations of one {@code semop} waiter or transfers of one kept reply: far above any
   * limit (a lowered limit must not make a snapshot unreadable), low enough to allocate.
   */
  private static final int MAX_ELEMENTS = 1 << 20;

  private final Limits limits;
  private final DataInput in;
  private final Map<Long, Long> leaseOwners = new HashMap<>();

  /** The format version of the snapshot being read. */
  private int version;

  SnapshotReader(Limits limits, DataInput in) {
    this.limits = limits;
    this.in = in;
  }

  Engine read() throws IOException {
    if (in.readInt() != SnapshotWriter.MAGIC) {
      throw new IOException("not a Semafor snapshot");
    }
    version = in.readInt();
    // version 1 (before sessions recorded their client) is still read, so a node upgraded in a
    // rolling restart loads the snapshot its predecessor wrote
    if (version < 1 || version > SnapshotWriter.VERSION) {
      throw new IOException("unknown snapshot version " + version);
    }
    long revision = in.readLong();
    long now = in.readLong();
    long lastSeq = in.readLong();
    long lastToken = in.readLong();
    long lastSessionId = in.readLong();
    long lastPermitId = in.readLong();
    Secret idKey = version >= 3 ? readSecret() : Secret.NONE;
    Engine engine = new Engine(limits, readSemaphores());
    engine.revision = revision;
    engine.now = now;
    engine.lastSeq = lastSeq;
    engine.lastToken = lastToken;
    engine.lastSessionId = lastSessionId;
    engine.lastPermitId = lastPermitId;
    engine.keyIds(idKey);
    int leases = in.readInt();
    for (int i = 0; i < leases; i++) {
      readLease(engine);
    }
    int sessions = in.readInt();
    for (int i = 0; i < sessions; i++) {
      readSession(engine);
    }
    for (Map.Entry<Long, Long> owner : leaseOwners.entrySet()) {
      Lease lease = engine.leases.get(owner.getKey());
      if (lease != null) {
        lease.undeliveredTo = engine.session(owner.getValue());
      }
    }
    int waiters = in.readInt();
    for (int i = 0; i < waiters; i++) {
      readWaiter(engine);
    }
    engine.semaphores.forEachInRunOrder(SnapshotReader::checkCounts);
    return engine;
  }

  /**
   * What holds of every semaphore the machine wrote (docs/semantics.md#capacity): no count is
   * negative and value, owned, leased and undelivered permits add up to at most its capacity. A
   * snapshot that breaks it was not written by a machine, and would break the grant rules.
   */
  private static void checkCounts(Semaphore s) throws IOException {
    Result.SemaphoreStatus status = Queries.status(s);
    BigInteger owned = BigInteger.valueOf(status.owned());
    BigInteger leased = BigInteger.valueOf(status.leased());
    // what Queries.status derives, without overflow
    BigInteger undelivered = BigInteger.valueOf(s.outstanding).subtract(owned).subtract(leased);
    BigInteger total = BigInteger.valueOf(status.value()).add(BigInteger.valueOf(s.outstanding));
    BigInteger ceiling =
        BigInteger.valueOf(
            status.options().hasCapacity() ? status.options().capacity() : Long.MAX_VALUE);
    if (status.value() < 0
        || owned.signum() < 0
        || leased.signum() < 0
        || undelivered.signum() < 0
        || total.compareTo(ceiling) > 0) {
      throw new IOException("corrupt snapshot: impossible counts in " + status);
    }
  }

  private SemaphoreIndex readSemaphores() throws IOException {
    int capacity = in.readInt();
    int count = count("semaphores", Integer.MAX_VALUE);
    // read before the table is made, so that its size is checked against semaphores actually
    // present: a corrupt capacity must not allocate gigabytes
    List<Semaphore> semaphores = new ArrayList<>(Math.min(count, PREALLOCATED));
    for (int i = 0; i < count; i++) {
      byte[] name = ResultCodec.readBytes(in);
      long value = in.readLong();
      SemaphoreOptions options =
          new SemaphoreOptions(in.readLong(), policy(in.readByte()), in.readInt());
      boolean slotted = in.readBoolean();
      Semaphore s = new Semaphore(name, Name.hash(name), value, options, slotted);
      s.outstanding = in.readLong();
      semaphores.add(s);
    }
    // the index halves its table once fewer than 1/8 of it is used, so a table more than 16
    // times its count was never written
    if (capacity < MIN_TABLE
        || Integer.bitCount(capacity) != 1
        || (capacity > MIN_TABLE && count * 16L < capacity)) {
      throw new IOException(
          "corrupt snapshot: a table of " + capacity + " slots for " + count + " semaphores");
    }
    SemaphoreIndex index = new SemaphoreIndex(capacity);
    for (Semaphore s : semaphores) {
      index.addUnordered(s);
    }
    index.orderNames(); // not in the snapshot: rebuilt from the names
    return index;
  }

  private static Policy policy(int number) throws IOException {
    try {
      return Policy.ofNumber(number);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt snapshot: policy " + number, e);
    }
  }

  /** A count of {@code what}, which must be within 0..{@code max}. */
  private int count(String what, int max) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > max) {
      throw new IOException("corrupt snapshot: " + n + " " + what);
    }
    return n;
  }

  /**
   * A slot number held on {@code s}: one of 1..its capacity, on a slotted semaphore, and no higher
   * than this node's {@code maxSlottedCapacity} (or 2^20 if that is lower): slots are a bitmap as
   * long as the highest one held, so a corrupt snapshot naming slot 2^31 of a semaphore claiming
   * that capacity would take 256 MB (found by SnapshotReaderFuzzTest).
   */
  private long slot(Semaphore s) throws IOException {
    long slot = in.readLong();
    long highest = Math.min(s.options().capacity(), Math.max(limits.maxSlottedCapacity(), 1 << 20));
    if (!s.slotted() || slot < 1 || slot > highest) {
      throw new IOException("corrupt snapshot: slot " + slot + " of " + s);
    }
    return slot;
  }

  /** A count-prefixed list of slot numbers held on {@code s}. */
  private long[] slots(Semaphore s) throws IOException {
    int n = count("slots", Integer.MAX_VALUE);
    long[] slots = new long[Math.min(n, PREALLOCATED)];
    for (int i = 0; i < n; i++) {
      if (i == slots.length) {
        slots = Arrays.copyOf(slots, (int) Math.min(n, slots.length * 2L));
      }
      slots[i] = slot(s);
    }
    return slots;
  }

  private void readLease(Engine engine) throws IOException {
    long permitId = in.readLong();
    Semaphore s = semaphore(engine);
    long amount = in.readLong();
    long[] slots = slots(s);
    for (long slot : slots) {
      s.holders().markSlot(slot);
    }
    long token = in.readLong();
    long sequence = in.readLong();
    long grantedAt = in.readLong();
    long expiresAt = in.readLong();
    long owner = in.readLong();
    // version 4: the principal that took it; before, nobody in particular (decision 0047)
    String principal = version >= 4 ? in.readUTF() : "";
    Lease lease =
        new Lease(
            permitId, s, amount, slots, token, sequence, grantedAt, expiresAt, null, principal);
    if (owner != 0) {
      leaseOwners.put(permitId, owner);
    }
    engine.leases.put(permitId, lease);
    s.holders().addLease(lease);
  }

  private Secret readSecret() throws IOException {
    return new Secret(in.readLong(), in.readLong());
  }

  private void readSession(Engine engine) throws IOException {
    long id = in.readLong();
    long ttl = in.readLong();
    long lastSeen = in.readLong();
    ClientInfo client = ClientInfo.NONE;
    long openedAt = lastSeen;
    if (version >= 2) {
      client = new ClientInfo(in.readUTF(), in.readUTF(), in.readLong());
      openedAt = in.readLong();
    }
    SessionOwner owner = SessionOwner.NONE;
    if (version >= 3) {
      owner = new SessionOwner(in.readUTF(), readSecret());
    }
    Session session = new Session(id, ttl, client, owner, openedAt, lastSeen);
    session.lastRequestId = in.readLong();
    session.waiting = in.readInt();
    session.unacked = in.readInt();
    engine.addSession(session);
    int holdings = in.readInt();
    for (int i = 0; i < holdings; i++) {
      Semaphore s = semaphore(engine);
      Holding h = session.holding(s);
      h.adjustment = in.readLong();
      s.holders().ownedChanged(0, h.owned());
      h.pendingOwned = in.readLong();
      for (long slot : slots(s)) {
        h.pushSlot(slot);
        s.holders().markSlot(slot);
      }
    }
    int lists = in.readInt();
    for (int i = 0; i < lists; i++) {
      WaitList list = new WaitList(session, in.readLong());
      list.nextOrdinal = in.readLong();
      list.lastReported = in.readLong();
      session.waitLists.put(list.listId, list);
      int entries = in.readInt();
      for (int j = 0; j < entries; j++) {
        boolean deleted = in.readBoolean();
        Semaphore s = deleted ? deletedSemaphore() : semaphore(engine);
        WaitManyEntry entry = new WaitManyEntry(list, s, in.readLong());
        entry.granted = in.readLong();
        entry.token = in.readLong();
        entry.deleted = deleted;
        list.entries.put(s, entry);
        if (!deleted) {
          s.holders().entries.add(entry);
        }
      }
    }
    int deliveries = in.readInt();
    for (int i = 0; i < deliveries; i++) {
      Reply reply = ResultCodec.readReply(in);
      int moving = count("transfers", MAX_ELEMENTS);
      Semaphore[] semaphores = new Semaphore[moving];
      long[] amounts = new long[moving];
      for (int k = 0; k < moving; k++) {
        semaphores[k] = semaphore(engine);
        amounts[k] = in.readLong();
      }
      long permitId = in.readLong();
      Lease lease = permitId == 0 ? null : engine.leases.get(permitId);
      Object kept =
          lease != null
              ? Delivery.of(reply, lease)
              : moving > 0 ? Delivery.of(reply, semaphores, amounts) : reply;
      session.requests.put(reply.requestId(), kept);
    }
  }

  private void readWaiter(Engine engine) throws IOException {
    byte type = in.readByte();
    Session session = required(engine.session(in.readLong()), "a waiter's session");
    long requestId = in.readLong();
    long seq = in.readLong();
    long deadline = in.readLong();
    switch (type) {
      case SnapshotWriter.WAITER_SINGLE -> {
        Semaphore s = semaphore(engine);
        byte kind = in.readByte();
        long requested = in.readLong();
        boolean owned = in.readBoolean();
        long leaseTtl = in.readLong();
        long listId = in.readLong();
        long ordinal = in.readLong();
        WaitManyEntry entry = null;
        if (kind == SingleWaiter.WAIT_MANY_ENTRY) {
          WaitList list = required(session.waitList(listId), "a WaitMany waiter's list");
          entry = required(list.entries.get(s), "a WaitMany waiter's entry");
          if (entry.ordinal != ordinal) {
            throw new IOException("corrupt snapshot: WaitMany entry ordinal mismatch");
          }
        }
        SingleWaiter w =
            new SingleWaiter(
                session, requestId, seq, deadline, s, kind, requested, owned, leaseTtl, entry);
        s.queue().append(w);
        if (entry != null) {
          entry.pending = w;
        } else {
          session.requests.put(requestId, w);
        }
      }
      case SnapshotWriter.WAITER_SEMOP -> {
        int n = count("semop operations", MAX_ELEMENTS);
        Semaphore[] semaphores = new Semaphore[n];
        long[] deltas = new long[n];
        boolean[] noWait = new boolean[n];
        boolean[] owned = new boolean[n];
        for (int i = 0; i < n; i++) {
          semaphores[i] = semaphore(engine);
          deltas[i] = in.readLong();
          noWait[i] = in.readBoolean();
          owned[i] = in.readBoolean();
        }
        SemopWaiter w =
            new SemopWaiter(
                session,
                requestId,
                seq,
                deadline,
                new SemopPlan(semaphores, deltas, noWait, owned));
        for (SemopNode node : w.nodes) {
          node.semaphore.queue().append(node);
        }
        session.requests.put(requestId, w);
      }
      case SnapshotWriter.WAITER_CALL -> {
        WaitList list = required(session.waitList(in.readLong()), "a waitMany call's list");
        WaitManyCall call = new WaitManyCall(session, requestId, seq, deadline, list);
        list.call = call;
        session.requests.put(requestId, call);
      }
      default -> throw new IOException("corrupt snapshot: waiter type " + type);
    }
  }

  private Semaphore semaphore(Engine engine) throws IOException {
    Name name = Name.wrap(ResultCodec.readBytes(in));
    return required(engine.semaphores.get(name), "semaphore " + name);
  }

  /** A stand-in for a deleted semaphore that a WaitMany entry still has to report. */
  private Semaphore deletedSemaphore() throws IOException {
    byte[] name = ResultCodec.readBytes(in);
    Semaphore s = new Semaphore(name, Name.hash(name), 0, SemaphoreOptions.DEFAULT, false);
    s.markDeleted();
    return s;
  }

  private static <T> T required(@Nullable T value, String what) throws IOException {
    if (value == null) {
      throw new IOException("corrupt snapshot: " + what + " is missing");
    }
    return value;
  }
}
