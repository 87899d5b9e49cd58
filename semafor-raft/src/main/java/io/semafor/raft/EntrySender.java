package io.semafor.raft;

import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.group.Asked;
import io.semafor.replication.group.Entry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's batching sender: every command submitted while an entry is in flight waits and goes
 * into the next entry, so a commit round carries as many commands as arrived during the previous
 * one; the reads queued with them go after that entry as one read-index request. Keeps what each
 * entry and read must answer until the state machine asks for it ({@link #askedOf}, {@link
 * #readOf}) or Ratis refuses it.
 *
 * <p>Thread-safe: {@link #submit}, {@link #read} and {@link #snapshot} may be called on any thread
 * and never wait for another thread's send; the caller that finds nothing in flight sends the entry
 * itself, which takes Ratis's member lock for the append. The caller checks leadership first.
 *
 * @param <C> what a command's asker gives ({@link io.semafor.replication.Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
final class EntrySender<C, R, S> {
  private static final Logger log = LoggerFactory.getLogger(EntrySender.class);

  /** Items in one entry at most: a bound on an entry's size, never reached in practice. */
  private static final int MAX_BATCH = 8192;

  /**
   * Entries in flight at once. Here every entry costs the nodes about the same CPU inside Ratis
   * whatever it carries, and the three nodes are CPU-bound under load, so more entries in flight
   * (smaller ones) were measured worse: W1 C=16 with three in flight 644 pairs/s after warm-up
   * against 1,000–1,250 with one (decision 0015); two in flight, W1 C=64 5,314 against 6,278
   * (decision 0018).
   */
  private static final int MAX_OUTSTANDING = 1;

  /** An entry in flight: its items and, index for index, what they were asked with. */
  private record Batch<C, R, S>(List<Entry.Item> items, List<Asked<C, R, S>> asked) {}

  /** The entry in flight, as {@link #entryInFlight} reports it. */
  record InFlight(long batch, long waitedNanos, int queued) {}

  private final String nodeId;
  private final RaftPeerId selfId;

  /**
   * Where entries and reads are submitted: this node's own Ratis member (decision 0018), once
   * started ({@link #attach}).
   */
  private volatile @Nullable RaftClientAsynchronousProtocol member;

  private final ApplyListener<C, R, S> listener;
  private final LongSupplier logTime;
  private final Supplier<String> leaderHint;

  /** Who this node's entries and reads come from, as Ratis's retry cache and reads know them. */
  private final ClientId selfClient = ClientId.randomId();

  private final AtomicLong nextCallId = new AtomicLong();

  /** The call id of the last entry answered, not yet told to Ratis's retry cache; 0 if none. */
  private final AtomicLong answeredCallId = new AtomicLong();

  /**
   * Sends the next entry when one completes: completions run on Ratis's state-machine updater
   * thread, which must not itself take the server's lock to append (see {@link #sendNext}).
   */
  private final ExecutorService sender;

  private final ConcurrentLinkedQueue<Asked<C, R, S>> queue = new ConcurrentLinkedQueue<>();
  private final ReentrantLock sendLock = new ReentrantLock();

  /** Entries sent and not yet answered. */
  private final AtomicInteger outstanding = new AtomicInteger();

  /** When the entry in flight was handed to Ratis ({@link System#nanoTime()}), and which it is. */
  private volatile long inFlightSince;

  private volatile long inFlightBatch;

  private final AtomicLong nextBatch = new AtomicLong();
  private final AtomicLong nextRead = new AtomicLong();
  private final ConcurrentHashMap<Long, Batch<C, R, S>> inFlight = new ConcurrentHashMap<>();

  /** Reads sent on the read-index path and not yet answered, by read id. */
  private final ConcurrentHashMap<Long, Asked.Read<C, R, S>> pendingReads =
      new ConcurrentHashMap<>();

  /**
   * A snapshot item taken off the queue while building an entry that already had commands: it goes
   * first in the next entry, alone. Written holding {@link #sendLock}.
   */
  private volatile @Nullable Asked<C, R, S> carried;

  /**
   * A sender for node {@code nodeId}, which sends nothing until {@link #attach}ed to its member;
   * {@code logTime} stamps each entry, {@code leaderHint} goes with every refusal. Made before the
   * member starts, since the state machine asks it for contexts while it replays the log.
   */
  EntrySender(
      String nodeId,
      ApplyListener<C, R, S> listener,
      LongSupplier logTime,
      Supplier<String> leaderHint) {
    this.nodeId = nodeId;
    this.selfId = RaftPeerId.valueOf(nodeId);
    this.listener = listener;
    this.logTime = logTime;
    this.leaderHint = leaderHint;
    this.sender =
        Executors.newSingleThreadExecutor(RaftReplicator.daemon("semafor-raft-send-" + nodeId));
  }

  /** Sends to {@code started}, this node's Ratis member, from now on. */
  void attach(RaftClientAsynchronousProtocol started) {
    this.member = started;
  }

  /** Queues a command for the next entry. */
  void submit(Command command, @Nullable C context) {
    queue.offer(Asked.Op.of(command, context));
    sendNext();
  }

  /** Queues a read: it goes after the commands queued before it, so it sees them. */
  void read(Query query, @Nullable R context) {
    queue.offer(new Asked.Read<>(new Entry.Read(nextRead.incrementAndGet(), query), context));
    sendNext();
  }

  /** Queues a snapshot: an entry of its own after the commands queued before it. */
  void snapshot(@Nullable S context) {
    queue.offer(new Asked.Snapshot<>(new Entry.Snapshot(nextRead.incrementAndGet()), context));
    sendNext();
  }

  /** The read {@code id} this node sent, taken: null if it is not this node's or was answered. */
  Asked.@Nullable Read<C, R, S> readOf(long id) {
    return pendingReads.remove(id);
  }

  /** What the items of this node's entry {@code batch} were asked with, taken; null if unknown. */
  @Nullable List<Asked<C, R, S>> askedOf(long batch) {
    Batch<C, R, S> b = inFlight.remove(batch);
    return b == null ? null : b.asked();
  }

  /** The entry in flight now, or null if none is. */
  @Nullable InFlight entryInFlight() {
    if (outstanding.get() == 0) {
      return null;
    }
    return new InFlight(inFlightBatch, System.nanoTime() - inFlightSince, queue.size());
  }

  /** Stops sending from completions; what is queued stays unanswered (the node is closing). */
  void close() {
    sender.shutdown();
  }

  /**
   * Sends what is queued as entries while fewer than {@link #MAX_OUTSTANDING} are in flight; a
   * completion sends what queued meanwhile (on {@link #sender}). Only the thread holding {@link
   * #sendLock} drains and sends, and with one entry in flight each entry is in the log before the
   * next is sent, so entries are in the log in queue order.
   *
   * <p>Entries go straight to this node's Ratis member, not through a Ratis client and gRPC to
   * itself (decision 0018). Appending takes the member's lock, so it happens on the submitting
   * thread (a Netty event loop) or on {@link #sender}, never on a Ratis thread that completed a
   * reply. Nobody ever waits for {@link #sendLock} either (decision 0015): a thread that finds it
   * taken leaves its work to the holder, which looks again after unlocking.
   */
  private void sendNext() {
    while (hasWork() && outstanding.get() < MAX_OUTSTANDING) {
      if (sendLock.isHeldByCurrentThread() || !sendLock.tryLock()) {
        return; // the holder looks again after unlocking (or, on a refusal inline, after sending)
      }
      try {
        while (hasWork() && outstanding.get() < MAX_OUTSTANDING) {
          sendOneEntry();
        }
      } finally {
        sendLock.unlock();
      }
    }
  }

  private boolean hasWork() {
    return carried != null || !queue.isEmpty();
  }

  /**
   * The next item to send: a carried snapshot first. Called holding {@link #sendLock}. A snapshot
   * goes in an entry of its own ({@link Entry.Snapshot}): one met after commands is carried to the
   * next entry, and nothing is added after one.
   */
  private @Nullable Asked<C, R, S> nextItem(List<Entry.Item> items) {
    if (!items.isEmpty() && items.get(items.size() - 1) instanceof Entry.Snapshot) {
      return null;
    }
    Asked<C, R, S> c = carried;
    if (c != null) {
      if (!items.isEmpty()) {
        return null;
      }
      carried = null;
      return c;
    }
    if (items.size() >= MAX_BATCH) {
      return null;
    }
    Asked<C, R, S> p = queue.poll();
    if (p != null && p.item() instanceof Entry.Snapshot && !items.isEmpty()) {
      carried = p;
      return null;
    }
    return p;
  }

  /**
   * Drains the queue: its commands become one entry, sent first; its reads then go, in order, on
   * Ratis's read-index path after that entry (read-after-write from the same client id), so each
   * read sees every command queued before it. Called holding {@link #sendLock}.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // whenComplete handles every outcome
  private void sendOneEntry() {
    List<Entry.Item> items = new ArrayList<>();
    List<Asked<C, R, S>> asked = new ArrayList<>();
    List<Asked.Read<C, R, S>> reads = new ArrayList<>();
    for (Asked<C, R, S> p = nextItem(items); p != null; p = nextItem(items)) {
      if (p instanceof Asked.Read<C, R, S> read) {
        reads.add(read);
      } else {
        items.add(p.item());
        asked.add(p);
      }
    }
    if (!items.isEmpty()) {
      long batch = nextBatch.incrementAndGet();
      inFlight.put(batch, new Batch<>(items, asked));
      Entry entry = new Entry(logTime.getAsLong(), nodeId, batch, items);
      inFlightBatch = batch;
      inFlightSince = System.nanoTime();
      outstanding.incrementAndGet();
      submitToSelf(
              Message.valueOf(UnsafeByteOperations.unsafeWrap(entry.encode())),
              RaftClientRequest.writeRequestType())
          .whenComplete((reply, error) -> sent(batch, reply, error));
    }
    if (!reads.isEmpty()) {
      // one read-index request answers every read of this drain
      long[] ids = new long[reads.size()];
      java.nio.ByteBuffer message = java.nio.ByteBuffer.allocate(Long.BYTES * ids.length);
      for (int i = 0; i < ids.length; i++) {
        ids[i] = reads.get(i).item().id();
        pendingReads.put(ids[i], reads.get(i));
        message.putLong(ids[i]);
      }
      // read-after-write: Ratis waits until this node's entries sent before it are applied
      submitToSelf(
              Message.valueOf(UnsafeByteOperations.unsafeWrap(message.array())),
              RaftClientRequest.readAfterWriteConsistentRequestType())
          .whenComplete((reply, error) -> readsSent(ids, reply, error));
    }
  }

  /**
   * Hands a request to this node's Ratis member as a client's request would arrive. Ratis's retry
   * cache keeps a write's reply until told the client has it, so each write names the previous
   * answered one.
   */
  private CompletableFuture<RaftClientReply> submitToSelf(
      Message message, RaftClientRequest.Type type) {
    RaftClientRequest.Builder request =
        RaftClientRequest.newBuilder()
            .setClientId(selfClient)
            .setServerId(selfId)
            .setGroupId(RaftReplicator.GROUP_ID)
            .setCallId(nextCallId.incrementAndGet())
            .setMessage(message)
            .setType(type);
    long answered =
        type.is(RaftClientRequestProto.TypeCase.WRITE) ? answeredCallId.getAndSet(0) : 0;
    if (answered != 0) {
      request.setRepliedCallIds(List.of(answered));
    }
    RaftClientAsynchronousProtocol to = member;
    if (to == null) {
      return CompletableFuture.failedFuture(new IOException("the Raft member has not started"));
    }
    try {
      return to.submitClientRequestAsync(request.build());
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A read-index request came back: its reads were answered by the state machine, or failed. */
  private void readsSent(long[] ids, @Nullable RaftClientReply reply, @Nullable Throwable error) {
    boolean failed = error != null || reply == null || !reply.isSuccess();
    for (long id : ids) {
      Asked.Read<C, R, S> unanswered = pendingReads.remove(id);
      if (failed && unanswered != null) {
        log.debug("read {} not answered here: {}", id, error != null ? error : reply);
        unanswered.refuse(listener, leaderHint.get());
      }
    }
  }

  /**
   * An entry came back: applied (its commands were answered as they applied), or refused. Runs on a
   * Ratis thread, or inline in {@link #submitToSelf} on a refusal; never waits for our lock.
   */
  private void sent(long batch, @Nullable RaftClientReply reply, @Nullable Throwable error) {
    boolean failed = error != null || reply == null || !reply.isSuccess();
    if (reply != null) {
      answeredCallId.set(reply.getCallId());
    }
    if (failed) {
      Batch<C, R, S> refused = inFlight.remove(batch);
      if (refused != null) {
        log.debug(
            "entry {} not committed here: {}",
            batch,
            error != null ? error.toString() : reply == null ? "no reply" : reply.getException());
        refuse(refused);
      }
    }
    outstanding.decrementAndGet();
    if (hasWork()) {
      sendFromSender();
    }
  }

  /** Tells the listener that each item of an entry Ratis refused was not done. */
  private void refuse(Batch<C, R, S> refused) {
    String hint = leaderHint.get();
    for (Asked<C, R, S> asked : refused.asked()) {
      asked.refuse(listener, hint);
    }
  }

  private void sendFromSender() {
    try {
      sender.execute(this::sendNext);
    } catch (RejectedExecutionException e) {
      log.debug("not sending: closed", e);
    }
  }
}
