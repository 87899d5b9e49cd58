package io.semafor.core;

import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes the whole state in a canonical order, so that two machines in the same state write the
 * same bytes and a restored machine writes again what it was read from.
 *
 * <p>Format (version 1), all numbers big-endian: magic, version, counters; semaphores in the
 * index's run order; leases; sessions with their holdings, WaitMany lists and kept replies; then
 * every waiter in arrival order, so that appending them rebuilds every queue as it was. Semaphores
 * are referred to by name; a WaitMany entry of a deleted semaphore carries its name and a deleted
 * mark.
 */
final class SnapshotWriter {
  static final int MAGIC = 0x534d4652; // "SMFR"
  static final int VERSION = 4;

  static final byte WAITER_SINGLE = 1;
  static final byte WAITER_SEMOP = 2;
  static final byte WAITER_CALL = 3;

  private final Engine engine;
  private final DataOutput out;

  /** The log time the snapshot is taken at: never before the last applied command's. */
  private final long now;

  SnapshotWriter(Engine engine, DataOutput out, long now) {
    this.engine = engine;
    this.out = out;
    this.now = Math.max(engine.now, now);
  }

  void write() throws IOException {
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeLong(engine.revision);
    // the time of the save, not of the last command: a restore counts every deadline from here
    out.writeLong(now);
    out.writeLong(engine.lastSeq);
    out.writeLong(engine.lastToken);
    out.writeLong(engine.lastSessionId);
    out.writeLong(engine.lastPermitId);
    // version 3: the id key, so a restored machine goes on with the same unguessable ids
    IdCipher ids = engine.ids;
    writeSecret(ids == null ? Secret.NONE : ids.key());
    writeSemaphores();
    out.writeInt(engine.leases.size());
    for (Lease lease : engine.leases.values()) {
      writeLease(lease);
    }
    out.writeInt(engine.sessions.size());
    List<Waiter> waiters = new ArrayList<>();
    for (long id : engine.sessions.sortedKeys()) {
      Session session = engine.sessions.get(id);
      if (session != null) {
        writeSession(session, waiters);
      }
    }
    waiters.sort(Comparator.comparingLong(w -> w.seq));
    out.writeInt(waiters.size());
    for (Waiter w : waiters) {
      writeWaiter(w);
    }
  }

  private void writeSemaphores() throws IOException {
    out.writeInt(engine.semaphores.capacity());
    out.writeInt(engine.semaphores.size());
    engine.semaphores.forEachInRunOrder(
        s -> {
          ResultCodec.writeBytes(out, s.name);
          out.writeLong(s.value);
          out.writeLong(s.options().capacity());
          out.writeByte(s.options().policy().number());
          out.writeInt(s.maxPerSession);
          out.writeBoolean(s.slotted());
          out.writeLong(s.outstanding);
        });
  }

  private void writeLease(Lease lease) throws IOException {
    out.writeLong(lease.permitId);
    ResultCodec.writeBytes(out, lease.semaphore.name);
    out.writeLong(lease.amount);
    out.writeInt(lease.slots.length);
    for (long slot : lease.slots) {
      out.writeLong(slot);
    }
    out.writeLong(lease.token);
    out.writeLong(lease.sequence);
    out.writeLong(lease.grantedAt);
    out.writeLong(lease.expiresAt);
    Session to = lease.undeliveredTo;
    out.writeLong(to == null ? 0 : to.id);
    // version 4: the principal that took it (decision 0047)
    out.writeUTF(lease.principal);
  }

  private void writeSecret(Secret secret) throws IOException {
    out.writeLong(secret.hi());
    out.writeLong(secret.lo());
  }

  private void writeSession(Session session, List<Waiter> waiters) throws IOException {
    out.writeLong(session.id);
    out.writeLong(session.ttl);
    out.writeLong(session.lastSeen);
    // version 2: who the client is and when the session opened
    out.writeUTF(session.client.name());
    out.writeUTF(session.client.host());
    out.writeLong(session.client.pid());
    out.writeLong(session.openedAt);
    // version 3: who may resume it
    out.writeUTF(session.owner.principal());
    writeSecret(session.owner.secretDigest());
    out.writeLong(session.lastRequestId);
    out.writeInt(session.waiting);
    out.writeInt(session.unacked);
    out.writeInt(session.holdings.size());
    for (Holding h : session.holdings.values()) {
      ResultCodec.writeBytes(out, h.semaphore.name);
      out.writeLong(h.adjustment);
      out.writeLong(h.pendingOwned);
      ResultCodec.writeLongs(out, h.slots());
    }
    out.writeInt(session.waitLists.size());
    for (WaitList list : session.waitLists.values()) {
      out.writeLong(list.listId);
      out.writeLong(list.nextOrdinal);
      out.writeLong(list.lastReported);
      out.writeInt(list.entries.size());
      for (WaitManyEntry entry : list.entries.values()) {
        out.writeBoolean(entry.deleted);
        ResultCodec.writeBytes(out, entry.semaphore.name);
        out.writeLong(entry.ordinal);
        out.writeLong(entry.granted);
        out.writeLong(entry.token);
        SingleWaiter pending = entry.pending;
        if (pending != null) {
          waiters.add(pending);
        }
      }
    }
    List<Object> kept = new ArrayList<>();
    for (long id : session.requests.sortedKeys()) {
      Object request = session.requests.get(id);
      if (request instanceof Waiter w) {
        waiters.add(w);
      } else if (request != null) {
        kept.add(request);
      }
    }
    out.writeInt(kept.size());
    for (Object request : kept) {
      writeKept(request);
    }
  }

  /** A kept reply with what it still hands over: transfers on live semaphores, a live lease. */
  private void writeKept(Object request) throws IOException {
    Reply reply = Delivery.replyOf(request);
    if (reply == null) {
      throw new IllegalStateException("not a kept reply: " + request);
    }
    ResultCodec.writeReply(out, reply);
    List<Semaphore> semaphores = new ArrayList<>();
    List<Long> amounts = new ArrayList<>();
    Lease lease = null;
    if (request instanceof Delivery d) {
      for (int i = 0; i < d.transfers(); i++) {
        if (!d.semaphore(i).deleted()) {
          semaphores.add(d.semaphore(i));
          amounts.add(d.amount(i));
        }
      }
      Lease l = d.lease;
      lease = l != null && engine.leases.get(l.permitId) == l ? l : null;
    }
    out.writeInt(semaphores.size());
    for (int i = 0; i < semaphores.size(); i++) {
      ResultCodec.writeBytes(out, semaphores.get(i).name);
      out.writeLong(amounts.get(i));
    }
    out.writeLong(lease == null ? 0 : lease.permitId);
  }

  private void writeWaiter(Waiter w) throws IOException {
    if (w instanceof SingleWaiter single) {
      out.writeByte(WAITER_SINGLE);
      writeWaiterHeader(w);
      ResultCodec.writeBytes(out, single.semaphore.name);
      out.writeByte(single.kind);
      out.writeLong(single.requested);
      out.writeBoolean(single.owned);
      out.writeLong(single.leaseTtl);
      WaitManyEntry entry = single.entry;
      out.writeLong(entry == null ? 0 : entry.list.listId);
      out.writeLong(entry == null ? 0 : entry.ordinal);
    } else if (w instanceof SemopWaiter semop) {
      out.writeByte(WAITER_SEMOP);
      writeWaiterHeader(w);
      SemopPlan plan = semop.plan;
      out.writeInt(plan.size());
      for (int i = 0; i < plan.size(); i++) {
        ResultCodec.writeBytes(out, plan.semaphores[i].name);
        out.writeLong(plan.deltas[i]);
        out.writeBoolean(plan.noWait[i]);
        out.writeBoolean(plan.owned[i]);
      }
    } else if (w instanceof WaitManyCall call) {
      out.writeByte(WAITER_CALL);
      writeWaiterHeader(w);
      out.writeLong(call.list.listId);
    } else {
      throw new IllegalStateException("unknown waiter " + w.kind());
    }
  }

  private void writeWaiterHeader(Waiter w) throws IOException {
    out.writeLong(w.session.id);
    out.writeLong(w.requestId);
    out.writeLong(w.seq);
    out.writeLong(w.deadline);
  }
}
