package io.semafor.bench.gate;

import io.microraft.statemachine.StateMachine;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A MicroRaft state machine that applies nothing, for measuring replication alone: its snapshots
 * and its new-term entry are empty byte arrays, what the gate's peer codec carries.
 */
final class NothingMachine implements StateMachine {
  private static final byte[] NOTHING = new byte[0];

  @Override
  public @Nullable Object runOperation(long commitIndex, @Nullable Object operation) {
    return null;
  }

  @Override
  public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
    chunks.accept(NOTHING);
  }

  @Override
  public void installSnapshot(long commitIndex, List<Object> chunks) {}

  @Override
  public Object getNewTermOperation() {
    return NOTHING;
  }
}
