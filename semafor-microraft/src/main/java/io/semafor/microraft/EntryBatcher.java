package io.semafor.microraft;

import io.microraft.RaftNode;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.replication.ApplyListener;
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
 * the state machine applies it ({@link #contextsOf}) or MicroRaft refuses it.
 *
 * <p>Thread-safe: {@link #submit}, {@link #read} and {@link #snapshot} may be called on any thread
 * and never wait; MicroRaft takes each entry onto its node's thread.
 */
final class EntryBatcher {
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

  /** An item to send, and where its answer goes. */
  private record Pending(Entry.Item item, @Nullable Object context) {}

  private final String nodeId;
  private final RaftNode node;
  private final int entriesInFlight;
  private final ApplyListener listener;
  private final LongSupplier logTime;
  private final Supplier<String> leaderHint;

  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ReentrantLock sendLock = new ReentrantLock();

  /**
   * Batch numbers start from the wall clock (in 1/65536 ms): a member that restarts re-applies its
   * own entries from its log, and their numbers must not be ones it hands out again.
   */
  private final AtomicLong nextBatch = new AtomicLong(System.currentTimeMillis() << 16);

  private final AtomicLong nextId = new AtomicLong();

  /** What each entry this member sent carries, by batch number, until applied or refused. */
  private final ConcurrentHashMap<Long, List<Pending>> sent = new ConcurrentHashMap<>();

  EntryBatcher(
      String nodeId,
      RaftNode node,
      int entriesInFlight,
      ApplyListener listener,
      LongSupplier logTime,
      Supplier<String> leaderHint) {
    this.nodeId = nodeId;
    this.node = node;
    this.entriesInFlight = entriesInFlight;
    this.listener = listener;
    this.logTime = logTime;
    this.leaderHint = leaderHint;
  }

  void submit(Command command, @Nullable Object context) {
    queue.add(new Pending(new Entry.Op(command), context));
    send();
  }

  void read(Query query, @Nullable Object context) {
    queue.add(new Pending(new Entry.Read(nextId.incrementAndGet(), query), context));
    send();
  }

  void snapshot(@Nullable Object context) {
    queue.add(new Pending(new Entry.Snapshot(nextId.incrementAndGet()), context));
    send();
  }

  /** The contexts of a batch, taken: null if another member proposed it or it was refused. */
  @Nullable List<@Nullable Object> contextsOf(String origin, long batch) {
    List<Pending> pending = origin.equals(nodeId) ? sent.remove(batch) : null;
    if (pending == null) {
      return null;
    }
    List<@Nullable Object> contexts = new ArrayList<>(pending.size());
    pending.forEach(p -> contexts.add(p.context()));
    return contexts;
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
    for (Pending p; (p = queue.poll()) != null; ) {
      refuse(p.item(), p.context(), hint);
    }
    for (Long batch : List.copyOf(sent.keySet())) {
      List<Pending> pending = sent.remove(batch);
      if (pending != null) {
        pending.forEach(p -> refuse(p.item(), p.context(), hint));
      }
    }
  }

  private void refuse(Entry.Item item, @Nullable Object context, String hint) {
    if (item instanceof Entry.Op op) {
      listener.refused(op.command(), context, hint);
    } else if (item instanceof Entry.Read read) {
      listener.readRefused(read.query(), context, hint);
    } else {
      listener.snapshotRefused(context, hint);
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
          List<Pending> batch = new ArrayList<>();
          for (Pending p; batch.size() < MAX_ITEMS && (p = queue.poll()) != null; ) {
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
  private void replicate(List<Pending> batch) {
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
    List<Pending> batch = sent.remove(number);
    if (batch == null) {
      return; // applied already, or refused with the rest
    }
    String hint = leaderHint.get();
    for (Pending p : batch) {
      refuse(p.item(), p.context(), hint);
    }
  }
}
