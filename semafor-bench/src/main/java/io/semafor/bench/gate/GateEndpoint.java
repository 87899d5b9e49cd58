package io.semafor.bench.gate;

import io.microraft.RaftEndpoint;

/** A member of the gate's MicroRaft group, named as the Semafor cluster names its nodes. */
record GateEndpoint(String id) implements RaftEndpoint {
  @Override
  public Object getId() {
    return id;
  }
}
