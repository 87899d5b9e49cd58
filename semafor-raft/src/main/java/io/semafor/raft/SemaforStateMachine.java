package io.semafor.raft;

import io.semafor.core.Limits;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.group.Asked;
import io.semafor.replication.group.Entry;
import io.semafor.replication.group.EntryApplier;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core state machine under Ratis. Every node applies every entry — a batch of commands stamped
 * with the leader's log time — in log order; the outcomes go to the node's {@link ApplyListener},
 * and the commands' contexts (the connections to answer) exist only on the node that proposed them.
 * Waiters are state, never pending futures: an entry's future completes as soon as it is applied.
 * Nothing is thrown from {@link #applyTransaction}, which would stop the server.
 *
 * <p>Reads arrive through {@link #query} on the leader (Ratis's read-index path) and answer through
 * the listener too. Snapshots are the core's snapshot format in one file per snapshot.
 *
 * @param <C> what a command's asker gives ({@link io.semafor.replication.Replicator})
 * @param <R> what a read's asker gives
 * @param <S> what a snapshot's asker gives
 */
final class SemaforStateMachine<C, R, S> extends BaseStateMachine
    implements StateMachine.EventApi, StateMachine.LeaderEventApi {
  private static final Logger log = LoggerFactory.getLogger(SemaforStateMachine.class);

  /** What the replicator needs to hear from the state machine. */
  interface Owner<C, R, S> {
    /**
     * The read with this id that this node sent on the read-index path, taken: null if it is
     * unknown or was answered already.
     */
    Asked.@Nullable Read<C, R, S> readOf(long id);

    /**
     * What the items of a batch this node proposed were asked with, in order; null if another node
     * proposed it.
     */
    @Nullable List<Asked<C, R, S>> askedOf(String origin, long batch);

    /** This node's leadership is ready: called with the machine locked. */
    void leaderReady(SemaphoreMachine machine);

    /** Another node (or none, "") leads now. */
    void leaderChanged(String leaderId);

    /** The log time now: the leader's clock while this node leads, else the last command's. */
    long logTime();

    /** This node's Raft log failed to write {@code entry} (null if unknown). */
    void logFailed(Throwable cause, @Nullable LogEntryProto entry);
  }

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final ReentrantLock lock = new ReentrantLock();
  private final Limits limits;
  private final ApplyListener<C, R, S> listener;
  private final EntryApplier<C, R, S> applier;
  private final Owner<C, R, S> owner;
  private final String selfId;

  /** Guarded by {@link #lock}; replaced when a snapshot is loaded. */
  private SemaphoreMachine machine;

  /**
   * The newest snapshot, kept here because Ratis asks for it on every pass of every log appender,
   * and its storage rescans the directory on each call while there is none (6% of the leader's CPU
   * under load, measured).
   */
  private volatile @Nullable SingleFileSnapshotInfo latestSnapshot;

  SemaforStateMachine(
      SemaphoreMachine machine,
      Limits limits,
      ApplyListener<C, R, S> listener,
      Owner<C, R, S> owner,
      String selfId) {
    this.machine = machine;
    this.limits = limits;
    this.listener = listener;
    this.applier = new EntryApplier<>(listener);
    this.owner = owner;
    this.selfId = selfId;
  }

  /** The log time of the last applied command. */
  long now() {
    lock.lock();
    try {
      return machine.now();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    removeUnfinishedSnapshots(storage.getSnapshotFile(0, 0).getParentFile());
    load(storage.loadLatestSnapshot());
  }

  /**
   * A snapshot the leader installed that Ratis has yet to load: set when Ratis pauses the machine
   * to put one in place, cleared when {@link #reinitialize} has loaded it.
   */
  private volatile boolean reloadPending;

  /** The index of the snapshot {@link #reinitialize} loaded last (-1: none). */
  private volatile long reloadedIndex = -1;

  /** The longest {@link #pause} waits for an earlier snapshot's load to end. */
  static final java.time.Duration RELOAD_WAIT = java.time.Duration.ofSeconds(10);

  /**
   * Ratis pauses the machine before installing a snapshot sent by the leader, and asserts it is
   * paused before calling {@link #reinitialize}.
   *
   * <p>If an earlier installed snapshot is still being loaded, this waits (at most {@link
   * #RELOAD_WAIT}) until Ratis has finished loading it: Ratis marks its apply thread running at the
   * end of a load, which loses a load asked for meanwhile, and the machine would stay at the older
   * snapshot while the log starts after the newer one, never to apply again (decision 0037; {@link
   * ApplyGap} stops the node should it happen anyway). Called on the thread that receives the
   * snapshot, which only delays that snapshot.
   */
  @Override
  public void pause() {
    awaitPendingReload();
    reloadPending = true;
    LifeCycle life = getLifeCycle();
    if (life.getCurrentState() == LifeCycle.State.NEW) {
      life.transition(LifeCycle.State.STARTING);
      life.transition(LifeCycle.State.RUNNING);
    }
    if (life.getCurrentState() == LifeCycle.State.RUNNING) {
      life.transition(LifeCycle.State.PAUSING);
      life.transition(LifeCycle.State.PAUSED);
    }
  }

  /** Loads the snapshot the leader installed, replacing the whole state, and resumes. */
  @Override
  public void reinitialize() throws IOException {
    SingleFileSnapshotInfo latest = storage.loadLatestSnapshot();
    load(latest);
    reloadedIndex = latest == null ? -1 : latest.getIndex();
    reloadPending = false;
    LifeCycle life = getLifeCycle();
    if (life.getCurrentState() == LifeCycle.State.PAUSED) {
      life.transition(LifeCycle.State.STARTING);
      life.transition(LifeCycle.State.RUNNING);
    }
  }

  /**
   * Waits until no installed snapshot is waiting to be loaded and Ratis's applied index has reached
   * the one loaded last (Ratis sets it just before it marks its apply thread running again), then a
   * moment more for that last step. Gives up after {@link #RELOAD_WAIT}.
   */
  private void awaitPendingReload() {
    long deadline = System.nanoTime() + RELOAD_WAIT.toNanos();
    try {
      while (reloadPending || ratisAppliedIndex() < reloadedIndex) {
        if (System.nanoTime() - deadline > 0) {
          log.warn(
              "an installed snapshot is still being loaded after {}: installing the next one"
                  + " anyway",
              RELOAD_WAIT);
          return;
        }
        Thread.sleep(5);
      }
      if (reloadedIndex >= 0) {
        Thread.sleep(20);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Ratis's applied index for this member; the largest value if it cannot be read. */
  private long ratisAppliedIndex() {
    try {
      return getServer().getNow(null).getDivision(getGroupId()).getInfo().getLastAppliedIndex();
    } catch (IOException | RuntimeException e) {
      return Long.MAX_VALUE;
    }
  }

  @Override
  public @Nullable SingleFileSnapshotInfo getLatestSnapshot() {
    return latestSnapshot;
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    TermIndex termIndex = TermIndex.valueOf(entry);
    lock.lock();
    try {
      Entry batch;
      try {
        batch = Entry.decode(entry.getStateMachineLogEntry().getLogData().newInput());
      } catch (IOException e) {
        // the same bytes fail the same way on every node, so skipping keeps them alike
        log.error("entry {} does not decode; skipped", termIndex, e);
        updateLastAppliedTermIndex(termIndex);
        return CompletableFuture.completedFuture(Message.EMPTY);
      }
      applier.apply(
          machine,
          batch,
          owner.askedOf(batch.origin(), batch.batch()),
          termIndex.getTerm(),
          termIndex.getIndex());
      updateLastAppliedTermIndex(termIndex);
    } finally {
      lock.unlock();
    }
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /**
   * Reads on Ratis's read-index path (the message is their ids), called on the leader once it has
   * applied everything they must see; answered through the listener like every other outcome, so no
   * answer is serialised here.
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteBuffer ids = request.getContent().asReadOnlyByteBuffer();
    lock.lock();
    try {
      while (ids.remaining() >= Long.BYTES) {
        Asked.Read<C, R, S> read = owner.readOf(ids.getLong());
        if (read != null) {
          // as of the leader's time now, not of the last command: an idle group's inspect would
          // show every deadline with the idle time added back (issue 31)
          listener.answered(
              read.item().query(),
              read.context(),
              machine.query(read.item().query()),
              Math.max(machine.now(), owner.logTime()));
        }
      }
      listener.batchEnded(); // answers go out at the end of a batch: these reads are one
    } finally {
      lock.unlock();
    }
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  @Override
  public long takeSnapshot() throws IOException {
    lock.lock();
    try {
      TermIndex last = getLastAppliedTermIndex();
      if (last == null || last.getIndex() < 0) {
        return -1;
      }
      File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
      writeWhole(file.toPath());
      MD5Hash md5 = saveDigest(file);
      SingleFileSnapshotInfo written =
          new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last);
      storage.updateLatestSnapshot(written);
      latestSnapshot = written;
      log.info("snapshot at {} written to {}", last, file);
      return last.getIndex();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes the digest beside a snapshot just written. Ratis's {@code computeAndSaveMd5ForFile}
   * throws an unchecked exception when it cannot (a full disk), and an unchecked exception out of
   * {@link #takeSnapshot} makes Ratis close the member and leave the process up without it — a
   * zombie node (found by the fault harness: DISK_FULL struck between the snapshot and its digest).
   * As an IOException the snapshot is only skipped, and taken again later; the snapshot without its
   * digest is deleted, so nothing half-done is left.
   */
  private static MD5Hash saveDigest(File snapshot) throws IOException {
    try {
      return MD5FileUtil.computeAndSaveMd5ForFile(snapshot);
    } catch (RuntimeException e) {
      Files.deleteIfExists(snapshot.toPath());
      throw new IOException("cannot write the digest of " + snapshot + ": " + e.getMessage(), e);
    }
  }

  /** The prefix of a snapshot being written: Ratis's snapshot name pattern never matches it. */
  private static final String WRITING = "writing.";

  /**
   * Writes the machine's snapshot to {@code target} whole or not at all: to a file of another name,
   * synced, then renamed over it and the directory synced. Written in place, a write that failed (a
   * full disk) left a truncated file under the snapshot's name, which Ratis took for the latest
   * snapshot at the next start, which then failed for good (EOFException; found by the fault
   * harness). On failure the partial file is deleted and the exception thrown.
   */
  private void writeWhole(Path target) throws IOException {
    Path writing = target.resolveSibling(WRITING + target.getFileName());
    try {
      try (FileChannel channel =
              FileChannel.open(
                  writing,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.TRUNCATE_EXISTING,
                  StandardOpenOption.WRITE);
          DataOutputStream out =
              new DataOutputStream(
                  new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16))) {
        machine.writeSnapshot(out);
        out.flush();
        channel.force(true);
      }
      Files.move(writing, target, StandardCopyOption.ATOMIC_MOVE);
      syncDirectory(target.getParent());
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(writing);
      throw e;
    }
  }

  /** Makes a rename in {@code dir} durable (Linux: fsync on the directory). */
  private static void syncDirectory(@Nullable Path dir) throws IOException {
    if (dir == null) {
      return;
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // some file systems refuse to open a directory for syncing; the rename is then as durable
      // as they make it
      log.debug("cannot sync directory {}: {}", dir, e.getMessage());
    }
  }

  /** Deletes snapshots left half-written by a crash or a failed write ({@link #writeWhole}). */
  private static void removeUnfinishedSnapshots(@Nullable File dir) throws IOException {
    if (dir == null || !dir.isDirectory()) {
      return;
    }
    try (var files = Files.list(dir.toPath())) {
      for (Path p : files.filter(f -> f.getFileName().toString().startsWith(WRITING)).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private void load(@Nullable SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) {
      return;
    }
    Path path = snapshot.getFile().getPath();
    MD5Hash written = snapshot.getFile().getFileDigest();
    if (written != null) {
      // Ratis's MD5FileUtil.verifySavedMD5 compares the digest with the .md5 file it was read
      // from, never with the data: a corrupted snapshot was loaded as if whole (found by the fault
      // harness). Hash the data itself.
      MD5Hash read = MD5FileUtil.computeMd5ForFile(path.toFile());
      if (!written.equals(read)) {
        throw new CorruptSnapshotException(path, written, read);
      }
    }
    SemaphoreMachine restored;
    try (InputStream raw = Files.newInputStream(path);
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
      restored = SemaphoreMachine.readSnapshot(limits, in);
    }
    lock.lock();
    try {
      machine = restored;
      latestSnapshot = snapshot;
      updateLastAppliedTermIndex(snapshot.getTermIndex());
      listener.restored(restored, restored.now());
      log.info("state loaded from the snapshot at {}", snapshot.getTermIndex());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void notifyLeaderReady() {
    lock.lock();
    try {
      owner.leaderReady(machine);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ratis calls this when its log worker fails to write or sync an entry. It does not stop: every
   * later append fails with the same error (measured: a single fsync EIO left a follower up,
   * answering, and never appending again), so the owner stops the node.
   */
  @Override
  public void notifyLogFailed(Throwable cause, @Nullable LogEntryProto failedEntry) {
    owner.logFailed(cause, failedEntry);
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    owner.leaderChanged("");
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    String leader = newLeaderId == null ? "" : newLeaderId.toString();
    if (!leader.equals(selfId)) {
      owner.leaderChanged(leader);
    }
  }
}
