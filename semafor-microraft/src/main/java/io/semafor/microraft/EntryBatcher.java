package io.semafor.microraft;

import io.microraft.RaftNode;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.group.Asked;
import io.semafor.replication.group.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The leader's batching sender: every command submitted while {@code entriesInFlight} entries are
 * replicating waits and goes into the next entry, so a commit round carries as many commands as
 * arrived during the previous one. Reads and snapshots queue with the commands and travel in the
 * same entries, so each sees what was submitted before it. Keeps what each entry must answer until
 * the state machine applies it ({@link #askedOf}) or MicroRaft refuses it.
 *
 * <p>Thread-safe: {@link #submit}, {@link #read} and {@link #snapshot} may be called on any thread
 * and never wait; MicroRaft takes each entry onto its node's thread.
 *
 * @param <C> what a command's asker gives ({@link io.semafor.replication.Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
final class EntryBatcher<C, R, S> {
  /** Items in one entry at most. */
  static final int MAX_ITEMS = 8192;

  /**
   * An entry is split before it passes this size, so that MicroRaft's batch of {@link
   * #ENTRIES_PER_APPEND} entries stays below the transport's frame ({@link
   * PeerTransport#MAX_FRAME_BYTES}); one command alone may pass it.
   */
  static final int MAX_ENTRY_BYTES = 1 << 20;

  /** Entries MicroRaft puts in one append request: 32 × 1 MiB is half the 64 MiB frame. */
  static final int ENTRIES_PER_APPEND = 32;

  private final String nodeId;
  private final RaftNode node;
  private final int entriesInFlight;
  private final ApplyListener<C, R, S> listener;
  private final LongSupplier logTime;
  private final Supplier<String> leaderHint;

  private final ConcurrentLinkedQueue<Asked<C, R, S>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ReentrantLock sendLock = new ReentrantLock();

  /**
   * Batch numbers start from the wall clock (in 1/65536 ms): a member that restarts re-applies its
   * own entries from its log, and their numbers must not be ones it hands out again.
   */
  private final AtomicLong nextBatch = new AtomicLong(System.currentTimeMillis() << 16);

  private final AtomicLong nextId = new AtomicLong();

  /** What each entry this member sent carries, by batch number, until applied or refused. */
  private final ConcurrentHashMap<Long, List<Asked<C, R, S>>> sent = new ConcurrentHashMap<>();

  EntryBatcher(
      String nodeId,
      RaftNode node,
      int entriesInFlight,
      ApplyListener<C, R, S> listener,
      LongSupplier logTime,
      Supplier<String> leaderHint) {
    this.nodeId = nodeId;
    this.node = node;
    this.entriesInFlight = entriesInFlight;
    this.listener = listener;
    this.logTime = logTime;
    this.leaderHint = leaderHint;
  }

  void submit(Command command, @Nullable C context) {
    queue.add(Asked.Op.of(command, context));
    send();
  }

  void read(Query query, @Nullable R context) {
    queue.add(new Asked.Read<>(new Entry.Read(nextId.incrementAndGet(), query), context));
    send();
  }

  void snapshot(@Nullable S context) {
    queue.add(new Asked.Snapshot<>(new Entry.Snapshot(nextId.incrementAndGet()), context));
    send();
  }

  /**
   * What a batch's items were asked with, taken, in the entry's order: null if another member
   * proposed it or it was refused.
   */
  @Nullable List<Asked<C, R, S>> askedOf(String origin, long batch) {
    return origin.equals(nodeId) ? sent.remove(batch) : null;
  }

  /** Entries sent and not yet committed or refused. */
  int inFlight() {
    return inFlight.get();
  }

  /**
   * Refuses everything queued and in flight: this member stopped leading or closes. An entry in
   * flight may still commit; it is then applied without answers, and its clients' retries under the
   * same request ids are applied once.
   */
  void refuseAll() {
    String hint = leaderHint.get();
    for (Asked<C, R, S> p; (p = queue.poll()) != null; ) {
      p.refuse(listener, hint);
    }
    for (Long batch : List.copyOf(sent.keySet())) {
      List<Asked<C, R, S>> pending = sent.remove(batch);
      if (pending != null) {
        pending.forEach(p -> p.refuse(listener, hint));
      }
    }
  }

  /**
   * Sends what is queued as entries while fewer than {@code entriesInFlight} are replicating. One
   * thread at a time takes items off the queue and hands them to MicroRaft, so entries are appended
   * in the order their items were queued; a thread that finds another sending leaves its items to
   * it, and the sender looks at the queue again after it lets go.
   */
  private void send() {
    while (!queue.isEmpty() && inFlight.get() < entriesInFlight) {
      if (!sendLock.tryLock()) {
        return; // the sender sees what this thread queued: it looks again after unlocking
      }
      try {
        while (!queue.isEmpty() && inFlight.get() < entriesInFlight) {
          List<Asked<C, R, S>> batch = new ArrayList<>();
          for (Asked<C, R, S> p; batch.size() < MAX_ITEMS && (p = queue.poll()) != null; ) {
            batch.add(p);
          }
          if (batch.isEmpty()) {
            break; // refused meanwhile by refuseAll
          }
          inFlight.incrementAndGet();
          replicate(batch);
        }
      } finally {
        sendLock.unlock();
      }
    }
  }

  /** Replicates {@code batch} as one entry, or as two halves if it would pass the size cap. */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback handles both outcomes
  private void replicate(List<Asked<C, R, S>> batch) {
    List<Entry.Item> items = new ArrayList<>(batch.size());
    batch.forEach(p -> items.add(p.item()));
    long number = nextBatch.incrementAndGet();
    byte[] bytes = new Entry(logTime.getAsLong(), nodeId, number, items).encode();
    if (bytes.length > MAX_ENTRY_BYTES && batch.size() > 1) {
      // rare: large commands. The halves go in order; this call's place in flight goes to the
      // first, and the second takes one more
      inFlight.incrementAndGet();
      replicate(List.copyOf(batch.subList(0, batch.size() / 2)));
      replicate(List.copyOf(batch.subList(batch.size() / 2, batch.size())));
      return;
    }
    sent.put(number, batch);
    node.replicate(bytes)
        .whenComplete(
            (result, failure) -> {
              try {
                if (failure != null) {
                  refuseBatch(number);
                }
              } finally {
                inFlight.decrementAndGet();
                send();
              }
            });
  }

  /** MicroRaft did not commit this entry (it may later): refuses what was not answered. */
  private void refuseBatch(long number) {
    List<Asked<C, R, S>> batch = sent.remove(number);
    if (batch == null) {
      return; // applied already, or refused with the rest
    }
    String hint = leaderHint.get();
    for (Asked<C, R, S> p : batch) {
      p.refuse(listener, hint);
    }
  }
}
