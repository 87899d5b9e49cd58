package io.semafor.it.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The faults a run injects (its nemeses), each applied for a while and then undone. A fault picks
 * its victims from the cluster as it is at that moment (the leader, or nodes at random), so the
 * same seed gives the same sequence of kinds but its victims follow the run.
 */
enum Fault {
  /** The leader cut off from every other node (it keeps its clients): a new leader must rise. */
  ISOLATE_LEADER(true),
  /** The nodes split at random into a majority and a minority, both ways. */
  PARTITION_HALVES(false),
  /** One node stops hearing another (packets dropped one way only). */
  ONE_WAY(false),
  /** kill -9 of a node at random, restarted when the fault ends. */
  KILL_ANY(false),
  /** kill -9 of the leader, restarted when the fault ends. */
  KILL_LEADER(true),
  /** SIGSTOP of the leader past the election timeout, SIGCONT when the fault ends. */
  PAUSE_LEADER(true),
  /** SIGSTOP of a follower, SIGCONT when the fault ends. */
  PAUSE_FOLLOWER(false);

  /** Whether the fault takes the leader away (a failover is then measured). */
  final boolean losesLeader;

  Fault(boolean losesLeader) {
    this.losesLeader = losesLeader;
  }

  /** What a fault did, to undo it. */
  interface Undo {
    void undo();
  }

  /**
   * Applies this fault to {@code nodes} on {@code network}; returns how to undo it and says what it
   * did in {@code said}. The leader's faults strike {@code leader}, or a node at random when none
   * says it leads (an election under way).
   */
  Undo apply(
      TestNetwork network,
      List<FaultNode> nodes,
      @org.jspecify.annotations.Nullable FaultNode currentLeader,
      Random random,
      StringBuilder said) {
    FaultNode leader =
        currentLeader != null ? currentLeader : nodes.get(random.nextInt(nodes.size()));
    switch (this) {
      case ISOLATE_LEADER -> {
        List<TestNetwork.Host> others = new ArrayList<>();
        for (FaultNode n : nodes) {
          if (n != leader) {
            others.add(n.host());
          }
        }
        network.partition(List.of(leader.host()), others);
        said.append("isolated ").append(leader.id());
        return network::heal;
      }
      case PARTITION_HALVES -> {
        List<FaultNode> shuffled = new ArrayList<>(nodes);
        java.util.Collections.shuffle(shuffled, random);
        int minority = (nodes.size() - 1) / 2;
        List<TestNetwork.Host> small = new ArrayList<>();
        List<TestNetwork.Host> large = new ArrayList<>();
        for (int i = 0; i < shuffled.size(); i++) {
          (i < minority ? small : large).add(shuffled.get(i).host());
        }
        network.partition(small, large);
        said.append("partitioned ").append(names(small)).append(" | ").append(names(large));
        return network::heal;
      }
      case ONE_WAY -> {
        FaultNode from = nodes.get(random.nextInt(nodes.size()));
        FaultNode to = nodes.get(random.nextInt(nodes.size()));
        while (to == from) {
          to = nodes.get(random.nextInt(nodes.size()));
        }
        network.drop(from.host(), to.host());
        said.append(to.id()).append(" stops hearing ").append(from.id());
        return network::heal;
      }
      case KILL_ANY, KILL_LEADER -> {
        FaultNode victim = this == KILL_LEADER ? leader : nodes.get(random.nextInt(nodes.size()));
        victim.kill();
        said.append("killed ").append(victim.id());
        return victim::start;
      }
      case PAUSE_LEADER, PAUSE_FOLLOWER -> {
        FaultNode victim = leader;
        if (this == PAUSE_FOLLOWER) {
          List<FaultNode> followers = new ArrayList<>(nodes);
          followers.remove(leader);
          victim = followers.get(random.nextInt(followers.size()));
        }
        victim.pause();
        said.append("paused ").append(victim.id());
        return victim::resume;
      }
    }
    throw new AssertionError(this);
  }

  private static String names(List<TestNetwork.Host> hosts) {
    List<String> out = new ArrayList<>();
    for (TestNetwork.Host h : hosts) {
      out.add(h.name());
    }
    return String.join(",", out);
  }

  /** The node that says it leads; null if none does (an election may be under way). */
  static @org.jspecify.annotations.Nullable FaultNode leader(List<FaultNode> nodes) {
    for (FaultNode n : nodes) {
      if (n.isRunning() && n.saysItLeads()) {
        return n;
      }
    }
    return null;
  }
}
