package io.semafor.replication;

import io.semafor.core.SemaphoreMachine;

/**
 * Makes the replicator a server applies its commands through: the in-process one by default, or a
 * Raft group member (semafor-raft), which the server cannot tell apart. A replicator that
 * implements Micrometer's {@code MeterBinder} is bound to the server's metrics registry once made:
 * that is how a Raft member's series reach {@code /metrics} without the server knowing Raft.
 *
 * <p>A replicator hands back, untouched, what the server gives with each request (its contexts,
 * typed by the server and private to it), so a factory makes one for any context types: implement
 * it with a method reference or a class, not a lambda (a lambda cannot be generic).
 */
public interface ReplicatorFactory {
  /** The single-node default: commands applied in this process, no log. */
  ReplicatorFactory LOCAL = LocalReplicator::new;

  /**
   * A single node that starts from {@code restored} (a backup file's state, {@code semafor server
   * --restore}) instead of the empty machine it is given: its sessions get a full TTL from now and
   * its timers are armed at their deadlines, log time continuing from the snapshot's.
   */
  static ReplicatorFactory restoring(SemaphoreMachine restored) {
    return new ReplicatorFactory() {
      @Override
      public <C, R, S> Replicator<C, R, S> create(
          SemaphoreMachine empty, ApplyListener<C, R, S> listener) {
        listener.restored(restored, restored.now());
        return new LocalReplicator<>(restored, listener);
      }
    };
  }

  /**
   * A replicator over {@code machine} reporting to {@code listener}.
   *
   * @throws java.io.UncheckedIOException (or another unchecked exception) if it cannot start
   */
  <C, R, S> Replicator<C, R, S> create(SemaphoreMachine machine, ApplyListener<C, R, S> listener);

  /** This factory, also handing each replicator it makes to {@code made} (tests keep them). */
  default ReplicatorFactory andThen(java.util.function.Consumer<Replicator<?, ?, ?>> made) {
    ReplicatorFactory inner = this;
    return new ReplicatorFactory() {
      @Override
      public <C, R, S> Replicator<C, R, S> create(
          SemaphoreMachine machine, ApplyListener<C, R, S> listener) {
        Replicator<C, R, S> r = inner.create(machine, listener);
        made.accept(r);
        return r;
      }
    };
  }
}
