package io.semafor.bench.gate;

/**
 * One member of a three-member replicated group under the gate's load: commands go in on the
 * leader, and each one's callback runs once the entry that carries it is committed (and, for Ratis,
 * applied). Implementations batch as Semafor's {@code EntrySender} does: commands submitted while
 * an entry is in flight wait and go together into the next one.
 */
sealed interface GateReplica extends AutoCloseable permits RatisReplica, MicroRaftReplica {
  /** Whether this member leads the group now. */
  boolean leads();

  /**
   * Queues one command of {@code client} for the next entry; {@code committed} runs on a
   * replication thread once it is committed, with {@code false} if it was refused. Thread-safe.
   */
  void submit(int client, Committed committed);

  /** The group's commit index as this member knows it. */
  long commitIndex();

  /** Stops the member; returns once its threads are gone or after a few seconds. */
  @Override
  void close();

  /** Where a command's fate goes. */
  @FunctionalInterface
  interface Committed {
    void done(boolean ok);
  }
}
