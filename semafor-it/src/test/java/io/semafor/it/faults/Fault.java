package io.semafor.it.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

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
  PAUSE_FOLLOWER(false),
  /**
   * The disk of a node at random filled to the last byte (new segments, snapshots and metadata
   * cannot be written); freed when the fault ends, and the node restarted if it had stopped.
   */
  DISK_FULL(false),
  /**
   * Every fsync of a node at random fails with EIO; when the fault ends syncs work again, and the
   * node is restarted if it had stopped.
   */
  FSYNC_EIO(false),
  /** Every fsync of the leader (when there is one) takes 200 ms. */
  FSYNC_SLOW(false),
  /**
   * Power cut on a node at random: kill -9, and a record half-written past the end of its open log
   * segment (what a torn write leaves, which kill -9 alone does not); restarted when the fault
   * ends.
   */
  TORN_TAIL(false),
  /** Every node drops a quarter of the packets it receives from the test network, at random. */
  PACKET_LOSS(false),
  /**
   * A slow network: every connection to a node, from the other nodes and from the clients, passes
   * through a {@link DelayProxy} that holds each chunk {@link #DELAY_MIN_MILLIS} to {@link
   * #DELAY_MAX_MILLIS} each way, in order. Connections open when it starts are cut so that they
   * come back through the proxies; when it ends the proxies close and connections come back direct.
   */
  PACKET_DELAY(false),
  /**
   * Every client's TCP connections are reset, and new ones refused, for the fault's length (less
   * than a session's TTL): requests cut mid-way are sent again on the resumed session.
   */
  CUT_CLIENTS(false),
  /**
   * Client 1's process frozen (SIGSTOP) past its session's TTL ({@link #FROZEN_CLIENT_TTL}), then
   * continued: its session expires, the server gives its permits to others, and the client learns
   * of it only when it wakes (etcd's lock lost during a wait, #11456). Fencing tokens are what keep
   * such a holder from doing harm; the checks hold the history to exactly that.
   */
  FREEZE_CLIENT(false),
  /**
   * The wall clock of a node at random (the leader or a follower) jumps an hour forward or back,
   * and back to the true time when the fault ends ({@link NodeClock}: the monotonic clock, which
   * Semafor and Ratis time with, is not touched). Nothing may notice: no session or lease may end
   * early or late, no election follow.
   */
  CLOCK_JUMP(false),
  /**
   * A membership change: a follower removed from the cluster (Raft reconfiguration, through the
   * leader's admin endpoint, as {@code semafor cluster remove}), stopped and its disk emptied; when
   * the fault ends a new member with another id, an empty directory and {@code --join} is started
   * in its place and added ({@code semafor cluster add}). The cluster runs a member short
   * meanwhile, and the faults that follow strike while the new member receives the leader's
   * snapshot. What an operator does to replace a machine or a damaged disk (operations.md).
   */
  REPLACE_MEMBER(false),
  /**
   * A membership change made while a partition is in force: a follower cut off from every other
   * node, then removed through the leader (the others are a majority of the old configuration and
   * all of the new one). When the fault ends the partition heals with the removed node still
   * running, for {@link #REMOVED_NODE_LINGERS}: it must not disrupt a cluster it no longer belongs
   * to, whose term and log moved on without it. Then it is stopped and replaced by a new member, as
   * {@link #REPLACE_MEMBER} does.
   */
  REPLACE_PARTITIONED_MEMBER(false),
  /**
   * A member dying in the middle of a membership change: a follower removed and stopped, as {@link
   * #REPLACE_MEMBER} does; when the fault ends its replacement is started and added, and while the
   * addition is under way (the leader catching the new member up, the joint configuration being
   * committed) another member at random — the leader half of the time — is killed with kill -9 and
   * restarted {@link #KILLED_DURING_CHANGE_FOR} later. On three nodes the change then needs the
   * killed node back (the old configuration is two members); the addition must complete once it is,
   * or fail without leaving the cluster unable to change again.
   */
  KILL_DURING_MEMBERSHIP_CHANGE(false),
  /**
   * A bad sector under a node's snapshot: a node at random (the leader or a follower) killed, one
   * byte flipped in the snapshot it would start from, and started again. It must refuse to start
   * (status 65, {@code CorruptSnapshotException}) rather than serve a state that differs from the
   * others'; anything else is a {@link #FINDING}. Then the operator's remedy (operations.md): the
   * member removed and replaced by a new one with an empty disk, as {@link #REPLACE_MEMBER}.
   */
  CORRUPT_SNAPSHOT(false);

  /**
   * What a fault's own description starts a broken promise it saw with (a node that served from a
   * corrupt snapshot, say); the run reports each as a violation.
   */
  static final String FINDING = "FINDING: ";

  /** How long a node given a corrupt snapshot has to refuse it and exit. */
  static final java.time.Duration REFUSE_WITHIN = java.time.Duration.ofSeconds(60);

  /** How long a node removed while partitioned stays up among the others once healed. */
  static final java.time.Duration REMOVED_NODE_LINGERS = java.time.Duration.ofSeconds(3);

  /**
   * How long after a removal that did not answer 200 its outcome is looked for: a change the leader
   * had begun is committed within a few heartbeats once a majority hears it.
   */
  static final java.time.Duration REMOVAL_SETTLES = java.time.Duration.ofSeconds(10);

  /** How long {@link #KILL_DURING_MEMBERSHIP_CHANGE} keeps its second victim down. */
  static final java.time.Duration KILLED_DURING_CHANGE_FOR = java.time.Duration.ofSeconds(4);

  /** How long the harness tries to add a replacement member while the cluster elects. */
  static final java.time.Duration ADD_MEMBER_WITHIN = java.time.Duration.ofSeconds(150);

  /** Client 1's session TTL in a run that may freeze it: shorter than a fault lasts. */
  static final java.time.Duration FROZEN_CLIENT_TTL = java.time.Duration.ofSeconds(2);

  /** How far {@link #CLOCK_JUMP} moves a wall clock: an hour, as Jepsen's clock nemesis bumps. */
  static final long CLOCK_JUMP_SECONDS = 3600;

  /** The least {@link #PACKET_DELAY} holds a chunk, each way. */
  static final long DELAY_MIN_MILLIS = 50;

  /**
   * The most {@link #PACKET_DELAY} holds a chunk, each way: a round trip between members stays
   * under the default election timeout's low end (300 ms), Raft's timing rule (docs/cluster.md,
   * "The network a cluster needs"). At 250 ms each way, round trips of up to 500 ms made a
   * MicroRaft leader step down again and again (it gives up when no majority answered within that
   * low end): the group had no usable leader for 3.6 to 11.5 s in three runs of six, and for over
   * 30 s in one of 41 on a loaded machine.
   */
  static final long DELAY_MAX_MILLIS = 100;

  /** The share of packets {@link #PACKET_LOSS} drops. */
  static final double LOSS = 0.25;

  /** Whether the fault takes the leader away (a failover is then measured). */
  final boolean losesLeader;

  Fault(boolean losesLeader) {
    this.losesLeader = losesLeader;
  }

  /**
   * Whether the fault strikes only a cluster that syncs its log (durability {@code FSYNC}): in
   * {@code REPLICATED} mode nothing calls fsync.
   */
  boolean needsSyncedLog() {
    return this == FSYNC_EIO || this == FSYNC_SLOW;
  }

  /** How long an fsync takes under {@link #FSYNC_SLOW}. */
  static final long SLOW_SYNC_MILLIS = 200;

  /** What a fault did, to undo it. */
  interface Undo {
    void undo();
  }

  /**
   * Applies this fault to {@code nodes} (or the {@code clients}' hosts) on {@code network}; returns
   * how to undo it and says what it did in {@code said}. The leader's faults strike {@code leader},
   * or a node at random when none says it leads (an election under way).
   */
  Undo apply(
      TestNetwork network,
      List<FaultNode> nodes,
      List<TestNetwork.Host> clients,
      List<Process> clientProcesses,
      @org.jspecify.annotations.Nullable FaultNode currentLeader,
      Random random,
      StringBuilder said) {
    FaultNode leader =
        currentLeader != null ? currentLeader : nodes.get(random.nextInt(nodes.size()));
    switch (this) {
      case ISOLATE_LEADER -> {
        isolate(network, nodes, leader);
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
      case DISK_FULL -> {
        FaultNode victim = nodes.get(random.nextInt(nodes.size()));
        victim.disk().fill();
        said.append("filled the disk of ").append(victim.id());
        return () -> {
          victim.disk().unfill();
          restartIfDown(victim, said);
        };
      }
      case FSYNC_EIO -> {
        FaultNode victim = nodes.get(random.nextInt(nodes.size()));
        victim.disk().failSyncs(victim.pid());
        said.append("fsync fails with EIO on ").append(victim.id());
        return () -> {
          victim.disk().untrace();
          restartIfDown(victim, said);
        };
      }
      case FSYNC_SLOW -> {
        leader.disk().slowSyncs(leader.pid(), SLOW_SYNC_MILLIS);
        said.append("fsync takes ").append(SLOW_SYNC_MILLIS).append(" ms on ").append(leader.id());
        return leader.disk()::untrace;
      }
      case PACKET_LOSS -> {
        for (FaultNode n : nodes) {
          network.lose(n.host(), LOSS);
        }
        said.append("every node loses ").append(Math.round(LOSS * 100)).append("% of packets");
        return network::heal;
      }
      case PACKET_DELAY -> {
        return delay(network, nodes, random, said);
      }
      case CUT_CLIENTS -> {
        for (TestNetwork.Host c : clients) {
          network.reset(c);
        }
        said.append("every client's connections cut");
        return network::heal;
      }
      case FREEZE_CLIENT -> {
        Process frozen = clientProcesses.get(0);
        TestNetwork.run("kill", "-STOP", Long.toString(frozen.pid()));
        said.append("froze client 1 past its session's TTL");
        return () -> {
          TestNetwork.quietly("kill", "-CONT", Long.toString(frozen.pid())); // may have ended
        };
      }
      case CLOCK_JUMP -> {
        FaultNode victim = nodes.get(random.nextInt(nodes.size()));
        long seconds = random.nextBoolean() ? CLOCK_JUMP_SECONDS : -CLOCK_JUMP_SECONDS;
        victim.clock().jump(seconds);
        said.append(victim.id()).append("'s wall clock ").append(seconds > 0 ? "+" : "-");
        said.append("1 h");
        return victim.clock()::reset;
      }
      case REPLACE_MEMBER -> {
        return replaceMember(nodes, currentLeader, random, said);
      }
      case CORRUPT_SNAPSHOT -> {
        return corruptSnapshot(nodes, random, said);
      }
      case REPLACE_PARTITIONED_MEMBER -> {
        return replacePartitionedMember(network, nodes, currentLeader, random, said);
      }
      case KILL_DURING_MEMBERSHIP_CHANGE -> {
        return killDuringMembershipChange(nodes, currentLeader, random, said);
      }
      case TORN_TAIL -> {
        FaultNode victim = nodes.get(random.nextInt(nodes.size()));
        victim.kill();
        var segment = victim.disk().tearTail(random, 64);
        said.append("power cut on ").append(victim.id());
        said.append(
            segment.isPresent()
                ? ", its log's tail torn"
                : " (no record in its open segment to tear)");
        return victim::start;
      }
    }
    throw new AssertionError(this);
  }

  private static Undo replaceMember(
      List<FaultNode> nodes,
      @org.jspecify.annotations.Nullable FaultNode leader,
      Random random,
      StringBuilder said) {
    FaultNode old = followerToReplace(nodes, leader, random);
    if (leader == null || old == null) {
      said.append("no leader to change the membership through: nothing done");
      return () -> {};
    }
    return replace(nodes, leader, old, said);
  }

  private static Undo killDuringMembershipChange(
      List<FaultNode> nodes,
      @org.jspecify.annotations.Nullable FaultNode leader,
      Random random,
      StringBuilder said) {
    FaultNode old = followerToReplace(nodes, leader, random);
    if (leader == null || old == null) {
      said.append("no leader to change the membership through: nothing done");
      return () -> {};
    }
    FaultNode fresh = removeAndEmpty(nodes, leader, old, said);
    if (fresh == null) {
      return () -> {};
    }
    long killAfterMillis = random.nextInt(1000);
    boolean killLeader = random.nextBoolean();
    int pick = random.nextInt(nodes.size());
    return () -> {
      fresh.start();
      java.util.concurrent.CompletableFuture<@org.jspecify.annotations.Nullable String> adding =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> addMember(nodes, fresh));
      FaultNode victim = null;
      try {
        Thread.sleep(killAfterMillis);
        victim = killLeader ? leader(nodes) : null;
        if (victim == null || victim == fresh) {
          List<FaultNode> others = new ArrayList<>();
          for (FaultNode n : nodes) {
            if (n != fresh && n.isRunning()) {
              others.add(n);
            }
          }
          victim = others.isEmpty() ? null : others.get(pick % others.size());
        }
        if (victim != null) {
          victim.kill();
          said.append("; adding ").append(fresh.id()).append(", killed ").append(victim.id());
          said.append(" after ").append(killAfterMillis).append(" ms");
          Thread.sleep(KILLED_DURING_CHANGE_FOR.toMillis());
          victim.start();
        }
        String why = adding.get(ADD_MEMBER_WITHIN.toSeconds() + 10, TimeUnit.SECONDS);
        said.append("; added ").append(fresh.id()).append(" in its place");
        if (why != null) {
          said.append(" FAILED: ").append(why); // "nodes not back" then fails the run
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        if (victim != null && victim.hasExited()) {
          victim.start(); // the run is ending: leave no member it killed down
        }
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        said.append("; adding ").append(fresh.id()).append(" FAILED: ").append(e);
      }
    };
  }

  /** Cuts {@code victim} off from every other node (it keeps its clients). */
  private static void isolate(TestNetwork network, List<FaultNode> nodes, FaultNode victim) {
    List<TestNetwork.Host> others = new ArrayList<>();
    for (FaultNode n : nodes) {
      if (n != victim) {
        others.add(n.host());
      }
    }
    network.partition(List.of(victim.host()), others);
  }

  /** A running follower at random, to replace; null if there is none (or no leader). */
  private static @org.jspecify.annotations.Nullable FaultNode followerToReplace(
      List<FaultNode> nodes, @org.jspecify.annotations.Nullable FaultNode leader, Random random) {
    List<FaultNode> followers = new ArrayList<>();
    for (FaultNode n : nodes) {
      if (n != leader && n.isRunning()) {
        followers.add(n);
      }
    }
    return leader == null || followers.isEmpty()
        ? null
        : followers.get(random.nextInt(followers.size()));
  }

  private static Undo replacePartitionedMember(
      TestNetwork network,
      List<FaultNode> nodes,
      @org.jspecify.annotations.Nullable FaultNode leader,
      Random random,
      StringBuilder said) {
    FaultNode old = followerToReplace(nodes, leader, random);
    if (leader == null || old == null) {
      said.append("no leader to change the membership through: nothing done");
      return () -> {};
    }
    isolate(network, nodes, old);
    said.append("isolated ").append(old.id());
    String refused = leader.removeMember(old.id());
    if (refused != null) {
      said.append(", could not remove it: ").append(refused);
      return () -> {
        network.heal();
        // a removal that timed out may still be made once the partition heals (run 67 of the
        // fifth campaign): then the node is out, and is replaced as if the removal had answered
        if (removedAfterAll(nodes, old)) {
          said.append("; the removal went through after the heal");
          lingerThenReplace(nodes, old, said);
        }
      };
    }
    said.append(" and removed it");
    return () -> {
      network.heal();
      said.append("; healed");
      lingerThenReplace(nodes, old, said);
    };
  }

  /**
   * Leaves the removed {@code old} up for {@link #REMOVED_NODE_LINGERS} (it must learn it is out,
   * or at least harm no one), then stops it and adds a new member with an empty disk in its place.
   */
  private static void lingerThenReplace(List<FaultNode> nodes, FaultNode old, StringBuilder said) {
    try {
      Thread.sleep(REMOVED_NODE_LINGERS.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    old.close(); // stopped, its tmpfs unmounted, as a decommissioned machine's
    FaultNode fresh = old.replacement(old.id() + "r");
    nodes.set(nodes.indexOf(old), fresh);
    fresh.start();
    String why = addMember(nodes, fresh);
    said.append(" with ").append(old.id()).append(" up for ");
    said.append(REMOVED_NODE_LINGERS.toSeconds()).append(" s, then stopped it and added ");
    said.append(fresh.id()).append(" in its place");
    if (why != null) {
      said.append(" FAILED: ").append(why); // "nodes not back" then fails the run
    }
  }

  /**
   * After a removal that did not answer 200: whether a leader reports {@code old} gone from the
   * members within {@link #REMOVAL_SETTLES}. A removal that timed out has an unknown outcome (the
   * leader may have begun it), and one refused while another change was under way may have been
   * that change.
   */
  static boolean removedAfterAll(List<FaultNode> nodes, FaultNode old) {
    long deadline = System.nanoTime() + REMOVAL_SETTLES.toNanos();
    while (System.nanoTime() < deadline) {
      FaultNode leader = leader(nodes);
      String members = leader == null ? null : leader.statusText("members");
      if (members != null && !List.of(members.split(",", -1)).contains(old.id())) {
        return true;
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /**
   * Removes {@code old} through {@code leader}, stops it and empties its disk; the undo starts a
   * new member with another id and an empty directory in its place and adds it.
   */
  private static Undo replace(
      List<FaultNode> nodes, FaultNode leader, FaultNode old, StringBuilder said) {
    FaultNode fresh = removeAndEmpty(nodes, leader, old, said);
    if (fresh == null) {
      return () -> {};
    }
    return () -> {
      fresh.start();
      String why = addMember(nodes, fresh);
      said.append("; added ").append(fresh.id()).append(" in its place");
      if (why != null) {
        said.append(" FAILED: ").append(why); // "nodes not back" then fails the run
      }
    };
  }

  /**
   * Removes {@code old} through {@code leader}, stops it and empties its disk, and puts its
   * replacement (another id, not started yet) in its place in {@code nodes}; null if the cluster
   * refused the removal (an election, a node still restarting: the run says so, it is not a broken
   * promise).
   */
  private static @org.jspecify.annotations.Nullable FaultNode removeAndEmpty(
      List<FaultNode> nodes, FaultNode leader, FaultNode old, StringBuilder said) {
    String refused = leader.removeMember(old.id());
    if (refused != null) {
      said.append("could not remove ").append(old.id()).append(": ").append(refused);
      if (!removedAfterAll(nodes, old)) {
        return null;
      }
      said.append(", but it went through after all: ");
    }
    old.close(); // stopped, its tmpfs unmounted: its data is gone, as a replaced disk's
    FaultNode fresh = old.replacement(old.id() + "r");
    nodes.set(nodes.indexOf(old), fresh);
    said.append("removed ").append(old.id()).append(" and emptied its disk");
    return fresh;
  }

  /**
   * Adds {@code fresh} through any other running member, trying again while the cluster has no
   * leader, for at most {@link #ADD_MEMBER_WITHIN}; null once added, else the last refusal.
   */
  private static @org.jspecify.annotations.Nullable String addMember(
      List<FaultNode> nodes, FaultNode fresh) {
    long deadline = System.nanoTime() + ADD_MEMBER_WITHIN.toNanos();
    String why = "no member to ask";
    while (System.nanoTime() < deadline) {
      for (FaultNode n : nodes) {
        if (n != fresh && n.isRunning()) {
          why = n.addMember(fresh.memberEntry());
          // "already a member": an earlier try whose answer timed out went through
          if (why == null || why.contains("is already a member")) {
            return null;
          }
        }
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
    }
    return why;
  }

  private static Undo delay(
      TestNetwork network, List<FaultNode> nodes, Random random, StringBuilder said) {
    List<DelayProxy> proxies = new ArrayList<>();
    try {
      for (FaultNode n : nodes) {
        for (int port : new int[] {FaultNode.RAFT_PORT, FaultNode.CLIENT_PORT}) {
          DelayProxy proxy =
              new DelayProxy(
                  network.gateway(),
                  new java.net.InetSocketAddress(n.host().address(), port),
                  DELAY_MIN_MILLIS,
                  DELAY_MAX_MILLIS,
                  random.nextLong());
          proxies.add(proxy);
          network.redirect(n.host(), port, proxy.port());
          network.cutConnections(n.host(), port);
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      network.unredirect();
      proxies.forEach(DelayProxy::close);
      throw new IllegalStateException("could not set up the delaying proxies", e);
    }
    said.append("every connection to a node delayed ").append(DELAY_MIN_MILLIS).append("..");
    said.append(DELAY_MAX_MILLIS).append(" ms each way");
    return () -> {
      network.unredirect();
      proxies.forEach(DelayProxy::close); // their connections end: the new ones go direct
    };
  }

  private static Undo corruptSnapshot(List<FaultNode> nodes, Random random, StringBuilder said) {
    List<FaultNode> running = new ArrayList<>();
    for (FaultNode n : nodes) {
      if (n.isRunning()) {
        running.add(n);
      }
    }
    if (running.isEmpty()) {
      said.append("no node running: nothing done");
      return () -> {};
    }
    FaultNode victim = running.get(random.nextInt(running.size()));
    victim.kill();
    if (victim.disk().corruptNewestSnapshot().isEmpty()) {
      said.append("killed ").append(victim.id()).append(" (no finished snapshot yet to damage)");
      return victim::start;
    }
    said.append("a byte of ").append(victim.id()).append("'s newest snapshot flipped");
    victim.start();
    Integer status;
    try {
      status = victim.awaitExit(REFUSE_WITHIN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return victim::kill;
    }
    if (status == null) {
      said.append("; ").append(FINDING).append(victim.id());
      said.append(" started from it and was still running ").append(REFUSE_WITHIN).append(" later");
      victim.kill();
    } else if (status != io.semafor.it.ClusterNodeProcess.CORRUPT_SNAPSHOT) {
      said.append("; ").append(FINDING).append(victim.id()).append(" exited with status ");
      said.append(status)
          .append(", not ")
          .append(io.semafor.it.ClusterNodeProcess.CORRUPT_SNAPSHOT);
    } else {
      said.append(", it refused to start; ");
    }
    FaultNode leader = awaitLeaderOtherThan(nodes, victim, java.time.Duration.ofSeconds(60));
    if (leader == null) {
      said.append("no other node led within 60 s to replace it through: restarted as it is");
      return victim::start; // it refuses again; "nodes not back" then says so
    }
    return replace(nodes, leader, victim, said);
  }

  private static @org.jspecify.annotations.Nullable FaultNode awaitLeaderOtherThan(
      List<FaultNode> nodes, FaultNode not, java.time.Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      FaultNode leader = leader(nodes);
      if (leader != null && leader != not) {
        return leader;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /** How long a node that does not answer is given to finish exiting, before it is judged up. */
  static final java.time.Duration EXITING_WITHIN = java.time.Duration.ofSeconds(10);

  /** A node that a fault stopped (its process exited) is started again, and the run says so. */
  private static void restartIfDown(FaultNode node, StringBuilder said) {
    // a node whose disk failed stops itself (status 74), and its exit takes seconds (Ratis's
    // close): one still running but not answering is given that time, else it was taken for up
    // and left down for the rest of the run (found by the fifth campaign, run 37)
    if (node.isRunning() && node.status() == null) {
      try {
        node.awaitExit(EXITING_WITHIN);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!node.isRunning()) {
      said.append("; ").append(node.id()).append(" had exited, restarted");
      node.start();
    }
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
