package io.semafor.microraft;

import io.microraft.statemachine.StateMachine;
import io.semafor.core.Limits;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.group.Asked;
import io.semafor.replication.group.Entry;
import io.semafor.replication.group.EntryApplier;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Semafor's state machine under MicroRaft: every member applies every entry (a batch of commands
 * stamped with the leader's log time) in log order, and the outcomes go to the member's {@link
 * ApplyListener}; the commands' contexts exist only on the member that proposed them. Nothing is
 * thrown from {@link #runOperation}, which would stop the node.
 *
 * <p>The entry a new leader appends first ({@link #getNewTermOperation}) carries its term: when a
 * member applies the one of the term it leads, it has applied everything committed before it, and
 * its leadership is ready ({@link Owner#leaderReady}) — as Ratis's {@code notifyLeaderReady}.
 *
 * <p>Snapshots are the core's snapshot format cut into chunks of {@link #CHUNK_BYTES}.
 *
 * <p>Called only on the node's thread; {@link #lastLogTime} may be read on any thread.
 *
 * @param <C> what a command's asker gives ({@link io.semafor.replication.Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
final class EntryMachine<C, R, S> implements StateMachine {
  private static final Logger log = LoggerFactory.getLogger(EntryMachine.class);

  /** A snapshot travels in chunks of this size. */
  static final int CHUNK_BYTES = 1 << 20;

  /** The first byte of a new leader's entry; an {@link Entry} starts with its version, 1. */
  private static final byte NEW_TERM = (byte) 0x7e;

  /** What the replicator hears from its state machine. */
  interface Owner<C, R, S> {
    /**
     * What the items of a batch this member proposed were asked with, in order; null if another
     * member proposed it.
     */
    @Nullable List<Asked<C, R, S>> askedOf(String origin, long batch);

    /** The term this member leads now, or -1: read on the node's thread. */
    int termLed();

    /** The term this member is in now: read on the node's thread. */
    int term();

    /**
     * This member applied its own new-term entry: it may serve, its log time from the machine's.
     */
    void leaderReady(SemaphoreMachine machine);
  }

  private final Limits limits;
  private final ApplyListener<C, R, S> listener;
  private final EntryApplier<C, R, S> applier;
  private final Owner<C, R, S> owner;
  private SemaphoreMachine machine;
  private final SnapshotPauses pauses;

  /** The log time of the last applied command, for {@link #lastLogTime}. */
  private volatile long lastLogTime;

  /** The index of the last entry applied (or snapshot installed), for status. */
  private volatile long appliedIndex;

  EntryMachine(
      SemaphoreMachine machine,
      ApplyListener<C, R, S> listener,
      Owner<C, R, S> owner,
      Duration electionTimeout) {
    this.pauses = new SnapshotPauses(electionTimeout);
    this.machine = machine;
    this.limits = machine.limits();
    this.listener = listener;
    this.applier = new EntryApplier<>(listener);
    this.owner = owner;
    this.lastLogTime = machine.now();
  }

  /** The index of the last entry applied or snapshot installed; any thread. */
  long appliedIndex() {
    return appliedIndex;
  }

  /** The log time of the last applied command; any thread. */
  long lastLogTime() {
    return lastLogTime;
  }

  @Override
  public @Nullable Object runOperation(long commitIndex, @Nullable Object operation) {
    appliedIndex = commitIndex;
    if (!(operation instanceof byte[] bytes) || bytes.length == 0) {
      log.error("entry {} is not a Semafor entry; skipped", commitIndex);
      return null;
    }
    if (bytes[0] == NEW_TERM) {
      int term = bytes.length == 5 ? ByteBuffer.wrap(bytes, 1, 4).getInt() : -1;
      if (term >= 0 && term == owner.termLed()) {
        owner.leaderReady(machine);
      }
      return null;
    }
    Entry batch;
    try {
      batch = Entry.decode(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      // the same bytes fail the same way on every member, so skipping keeps them alike
      log.error("entry {} does not decode; skipped", commitIndex, e);
      return null;
    }
    applier.apply(
        machine, batch, owner.askedOf(batch.origin(), batch.batch()), owner.term(), commitIndex);
    lastLogTime = machine.now();
    return null;
  }

  /**
   * Writes the state as chunks, on the member's thread. MicroRaft then persists them, flushes the
   * store and compacts the log, still on that thread ({@code RaftNodeImpl.takeSnapshot}); the store
   * reports the compaction ({@link #compacted}), and the whole time is what the snapshot held the
   * thread: meanwhile the member sends no heartbeat and applies nothing (docs/cluster.md,
   * "Snapshots").
   */
  @Override
  public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
    long started = System.nanoTime();
    List<byte[]> written = chunksOf(machine);
    written.forEach(chunks);
    long bytes = 0;
    for (byte[] chunk : written) {
      bytes += chunk.length;
    }
    snapshot =
        new SnapshotTaken(
            commitIndex,
            machine.semaphoreCount(),
            machine.sessionCount(),
            bytes,
            written.size(),
            started,
            System.nanoTime() - started);
  }

  /** A snapshot taken and not yet compacted into the log: what its log line says. */
  private record SnapshotTaken(
      long index,
      int semaphores,
      int sessions,
      long bytes,
      int chunks,
      long startedNanos,
      long encodeNanos) {}

  /** The snapshot {@link #takeSnapshot} took, until the store compacts the log behind it. */
  private @Nullable SnapshotTaken snapshot;

  /**
   * The store compacted the log: after a snapshot this member took, that ends the snapshot's hold
   * on the thread, which is logged, counted, and warned of if long (once). A compaction after a
   * snapshot installed from the leader says nothing. Called on the member's thread.
   */
  void compacted() {
    SnapshotTaken taken = snapshot;
    if (taken == null) {
      return;
    }
    snapshot = null;
    long held = System.nanoTime() - taken.startedNanos();
    log.info(
        "snapshot at {}: {} semaphores, {} sessions, {} bytes in {} chunks; held the member's"
            + " thread {} ms (encoded in {} ms, then written, flushed and the log compacted)",
        taken.index(),
        taken.semaphores(),
        taken.sessions(),
        taken.bytes(),
        taken.chunks(),
        held / 1_000_000,
        taken.encodeNanos() / 1_000_000);
    String warning = pauses.taken(held);
    if (warning != null) {
      log.warn(warning);
    }
  }

  /** How long this member's snapshots held its thread. */
  SnapshotPauses pauses() {
    return pauses;
  }

  /**
   * {@code machine}'s state in the core's snapshot format, cut into chunks of {@link #CHUNK_BYTES}.
   */
  static List<byte[]> chunksOf(SemaphoreMachine machine) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + machine.semaphoreCount() * 48);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      machine.writeSnapshot(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    byte[] all = bytes.toByteArray();
    List<byte[]> chunks = new ArrayList<>();
    for (int from = 0; from < all.length || from == 0; from += CHUNK_BYTES) {
      chunks.add(Arrays.copyOfRange(all, from, Math.min(all.length, from + CHUNK_BYTES)));
      if (all.length == 0) {
        break;
      }
    }
    return chunks;
  }

  /**
   * Replaces the whole state with the snapshot's. A snapshot that does not read leaves the state as
   * it was and is logged: MicroRaft has committed to it, so this member can no longer apply and
   * must be replaced (its log will not match what it applied).
   */
  @Override
  public void installSnapshot(long commitIndex, List<Object> chunks) {
    List<ByteArrayInputStream> parts = new ArrayList<>();
    for (Object chunk : chunks) {
      parts.add(new ByteArrayInputStream((byte[]) chunk));
    }
    try (DataInputStream in =
        new DataInputStream(new SequenceInputStream(Collections.enumeration(parts)))) {
      SemaphoreMachine restored = SemaphoreMachine.readSnapshot(limits, in);
      machine = restored;
      lastLogTime = restored.now();
      appliedIndex = commitIndex;
      listener.restored(restored, restored.now());
      log.info("state installed from the snapshot at {}", commitIndex);
    } catch (IOException | RuntimeException e) {
      log.error(
          "the snapshot at {} does not read; this member cannot go on applying", commitIndex, e);
      listener.failed("the snapshot at " + commitIndex + " does not read", e);
    }
  }

  /** The new leader's first entry: a marker and its term, read on the node's thread. */
  @Override
  public Object getNewTermOperation() {
    return ByteBuffer.allocate(5).put(NEW_TERM).putInt(owner.term()).array();
  }
}
