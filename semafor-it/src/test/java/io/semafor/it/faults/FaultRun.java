package io.semafor.it.faults;

import io.semafor.client.SemaforClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One run of the fault harness: a cluster of separate node JVMs and a few client processes, each in
 * its own network namespace; the clients work for {@link Settings#length} while faults come and go;
 * then every fault is undone, the clients end their sessions, and the histories they recorded are
 * checked ({@link #check}). Everything started is stopped by PID and the network torn down, also
 * when the run fails.
 */
final class FaultRun {
  /** The pools the clients take owned permits of, and their capacity. */
  static final List<String> POOLS = List.of("pool-a", "pool-b");

  static final long CAPACITY = 2;

  /** The semaphore the clients increment (from 0), to count increments exactly. */
  static final String COUNTER = "counter";

  /**
   * The semaphores (from 0) the clients add tickets to and consume them from with WaitMany lists,
   * to count grants exactly.
   */
  static final List<String> TICKETS = List.of("tickets-a", "tickets-b");

  /** The prefix of what a run reports that breaks no promise (unavailability, undecided checks). */
  static final String NOT_A_VIOLATION = "(not a violation) ";

  /**
   * What a run does.
   *
   * @param nodes cluster size (3 or 5)
   * @param clients client processes
   * @param length how long the clients work
   * @param faultFor how long each fault lasts
   * @param quietFor the pause between faults
   * @param durability the cluster's durability mode, {@code REPLICATED} or {@code FSYNC}
   * @param faults the kinds to choose from at random (those that need a synced log only with {@code
   *     FSYNC})
   * @param seed the random choices' seed
   * @param hold how long a client holds each permit
   * @param dir where logs, data and op logs go
   */
  record Settings(
      int nodes,
      int clients,
      Duration length,
      Duration faultFor,
      Duration quietFor,
      String durability,
      List<Fault> faults,
      long seed,
      Duration hold,
      Path dir) {}

  /** A fault as applied: its kind, what it did, and the failover it caused (ms; -1 if none). */
  record Applied(Fault fault, String what, long failoverMillis) {}

  /**
   * What a run found.
   *
   * @param operations operations the clients recorded, by kind and outcome
   * @param applied the faults, in order
   * @param violations by check, empty lists for checks that passed
   */
  record Outcome(
      Settings settings,
      Map<String, Integer> operations,
      List<Applied> applied,
      Map<String, List<String>> violations) {
    boolean passed() {
      return violations.entrySet().stream()
          .allMatch(e -> e.getKey().startsWith(NOT_A_VIOLATION) || e.getValue().isEmpty());
    }

    int totalOperations() {
      return operations.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  private FaultRun() {}

  /** Runs {@code s} and checks what the clients saw. */
  static Outcome run(Settings s) throws Exception {
    // a run's directory holds only this run: op logs and node logs are appended to, and a stale
    // op log read with this run's would compare times and tokens of two different clusters
    NodeDisk.removeLeftovers();
    deleteRecursively(s.dir());
    Files.createDirectories(s.dir());
    Random random = new Random(s.seed());
    List<FaultNode> nodes = new ArrayList<>();
    List<Process> workers = new ArrayList<>();
    try (TestNetwork network = TestNetwork.create()) {
      List<String> peers = new ArrayList<>();
      List<TestNetwork.Host> nodeHosts = new ArrayList<>();
      for (int i = 1; i <= s.nodes(); i++) {
        TestNetwork.Host h = network.addHost("n" + i);
        nodeHosts.add(h);
        peers.add(FaultNode.peerEntry("n" + i, h));
      }
      for (int i = 1; i <= s.nodes(); i++) {
        nodes.add(
            new FaultNode(
                "n" + i,
                nodeHosts.get(i - 1),
                String.join(",", peers),
                s.dir().resolve("n" + i),
                s.durability()));
      }
      try {
        for (FaultNode n : nodes) {
          n.start();
        }
        awaitLeader(nodes, Duration.ofSeconds(60));
        String addresses =
            nodes.stream().map(FaultNode::clientAddress).collect(Collectors.joining(","));
        setUp(addresses);
        List<Path> logs = new ArrayList<>();
        List<TestNetwork.Host> clientHosts = new ArrayList<>();
        for (int c = 1; c <= s.clients(); c++) {
          TestNetwork.Host h = network.addHost("c" + c);
          clientHosts.add(h);
          Path log = s.dir().resolve("client-" + c + ".ops");
          logs.add(log);
          workers.add(startWorker(h, c, addresses, log, s, random.nextLong()));
        }
        List<Applied> applied = nemesis(network, nodes, clientHosts, workers, s, random);
        List<String> unavailable = new ArrayList<>();
        List<String> clientsFailed =
            awaitWorkers(workers, s.dir(), Duration.ofSeconds(90), unavailable);
        // a liveness failure: what every node's threads and sockets were doing, for the diagnosis,
        // taken as soon as it is seen (before the watches in the nodes change what it shows)
        boolean dumped = dumpIf(!clientsFailed.isEmpty(), nodes, false);
        List<String> notAnswering = new ArrayList<>();
        Map<String, Long> finals = quiescentValues(addresses, Duration.ofSeconds(60), notAnswering);
        dumped = dumpIf(!notAnswering.isEmpty(), nodes, dumped);
        List<String> notBack = nodesNotBack(nodes, Duration.ofSeconds(60));
        dumpIf(!notBack.isEmpty(), nodes, dumped);
        // a client that never connected never opened its log
        List<Op> ops = OpLog.read(logs.stream().filter(Files::exists).toArray(Path[]::new));
        Map<String, List<String>> violations = new LinkedHashMap<>();
        violations.put("clients that failed", clientsFailed);
        violations.put("cluster not answering after the faults", notAnswering);
        violations.put("nodes not back after the faults", notBack);
        violations.put(
            "broken promises the faults saw",
            applied.stream()
                .filter(a -> a.what().contains(Fault.FINDING))
                .map(a -> a.fault() + ": " + a.what())
                .toList());
        violations.put("sessions expired while kept alive", sessionsLost(s));
        violations.putAll(check(ops, finals));
        violations.put(NOT_A_VIOLATION + "never connected", unavailable);
        return new Outcome(s, countByKind(ops), applied, violations);
      } finally {
        stopAll(workers, nodes);
      }
    }
  }

  /** Dumps every node's threads and sockets if {@code failed} and not {@code done} yet. */
  private static boolean dumpIf(boolean failed, List<FaultNode> nodes, boolean done) {
    if (failed && !done) {
      for (FaultNode n : nodes) {
        n.dumpThreadsAndSockets();
      }
      return true;
    }
    return done;
  }

  /** How long the nemesis waits for every node to answer again before the next fault. */
  static final Duration NODES_BACK_WITHIN = Duration.ofSeconds(30);

  /**
   * Waits until every running node answers its admin endpoint again (a node restarted by an undo
   * takes 5–12 s to start on a loaded machine), for at most {@code within}, so that faults come one
   * at a time: without it a kill striking while the last one's restart was still starting took a
   * majority down for longer than a session's TTL, which no single fault does (found by a smoke
   * whose sessions expired so). A node that stays silent is left to "nodes not back" to report.
   */
  private static void awaitNodesAnswering(List<FaultNode> nodes, Duration within, Settings s)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    for (FaultNode n : nodes) {
      if (n.hasExited()) {
        // it stopped itself after the undo looked (a failed disk's fail-stop takes seconds to
        // exit): started again, as the supervisor that operations.md asks for would
        note(
            s, n.id() + " had exited after the fault was undone: restarted, as a supervisor would");
        n.start();
      }
      while (n.isRunning() && n.status() == null && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      if (n.isRunning() && n.status() == null) {
        note(s, n.id() + " still not answering " + within + " after the fault was undone");
      }
    }
  }

  /**
   * Stops every client and node this run started, by PID, and waits for each to be gone, also when
   * the run is being interrupted (a campaign stopping its other runs after one failed): the
   * interrupt is set aside until everything is stopped, then restored. Found when an interrupted
   * run's first wait threw and left its three node JVMs running, outside any network, for good.
   */
  private static void stopAll(List<Process> workers, List<FaultNode> nodes) {
    boolean interrupted = Thread.interrupted();
    try {
      for (Process w : workers) {
        w.destroyForcibly();
      }
      for (FaultNode n : nodes) {
        n.close();
      }
      for (Process w : workers) {
        try {
          w.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The durability mode for the {@code run}th run of a campaign choosing from {@code faults}: runs
   * alternate between {@code REPLICATED} (the default mode) and {@code FSYNC}, except that faults
   * that all need a synced log always get {@code FSYNC}.
   */
  static String durability(int run, List<Fault> faults) {
    boolean onlySynced = faults.stream().allMatch(Fault::needsSyncedLog);
    return onlySynced || run % 2 == 0 ? "FSYNC" : "REPLICATED";
  }

  /** The kinds a run may apply: in {@code REPLICATED} mode, none that needs a synced log. */
  static List<Fault> applicable(Settings s) {
    if (s.durability().equals("FSYNC")) {
      return s.faults();
    }
    return s.faults().stream().filter(f -> !f.needsSyncedLog()).toList();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static void awaitLeader(List<FaultNode> nodes, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      for (FaultNode n : nodes) {
        if (n.saysItLeads()) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no leader within " + within);
  }

  private static SemaforClient admin(String addresses) {
    return SemaforClient.builder()
        .addresses(addresses)
        .clientName("fault-harness")
        .connectTimeout(Duration.ofSeconds(10))
        .giveUpAfter(Duration.ofSeconds(60))
        .connect();
  }

  private static void setUp(String addresses) {
    try (SemaforClient c = admin(addresses)) {
      for (String pool : POOLS) {
        c.create(pool, CAPACITY);
      }
      c.create(COUNTER, 0);
      for (String t : TICKETS) {
        c.create(t, 0);
      }
    }
  }

  private static Process startWorker(
      TestNetwork.Host host, int client, String addresses, Path log, Settings s, long seed)
      throws IOException {
    List<String> command =
        TestNetwork.javaIn(
            host,
            128,
            FaultWorker.class,
            List.of(
                Integer.toString(client),
                addresses,
                log.toString(),
                Long.toString(s.length().toMillis()),
                Long.toString(s.hold().toMillis()),
                String.join(",", POOLS),
                COUNTER,
                Long.toString(seed),
                Long.toString(sessionTtl(client, s).toMillis()),
                String.join(",", TICKETS)));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(s.dir().resolve("client-" + client + ".log").toFile())
        .start();
  }

  /**
   * Client {@code client}'s session TTL: short for the client that {@code FREEZE_CLIENT} freezes.
   */
  static Duration sessionTtl(int client, Settings s) {
    return client == 1 && applicable(s).contains(Fault.FREEZE_CLIENT)
        ? Fault.FROZEN_CLIENT_TTL
        : FaultWorker.SESSION_TTL;
  }

  /** Faults, one after another with quiet between, until the run's length is over; then healed. */
  private static List<Applied> nemesis(
      TestNetwork network,
      List<FaultNode> nodes,
      List<TestNetwork.Host> clients,
      List<Process> clientProcesses,
      Settings s,
      Random random)
      throws Exception {
    List<Applied> applied = new ArrayList<>();
    List<Fault> kinds = applicable(s);
    long end = System.nanoTime() + s.length().toNanos();
    while (System.nanoTime() + s.quietFor().toNanos() + s.faultFor().toNanos() <= end) {
      Thread.sleep(s.quietFor().toMillis());
      Fault fault = kinds.get(random.nextInt(kinds.size()));
      FaultNode leader = Fault.leader(nodes);
      StringBuilder said = new StringBuilder();
      long start = System.nanoTime();
      note(s, "applying " + fault);
      Fault.Undo undo = fault.apply(network, nodes, clients, clientProcesses, leader, random, said);
      note(s, fault + ": " + said);
      long failover = -1;
      try {
        long faultEnd = start + s.faultFor().toNanos();
        if (fault.losesLeader && leader != null) {
          failover = awaitNewLeader(nodes, leader, faultEnd);
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, faultEnd - System.nanoTime()));
      } finally {
        note(s, "undoing " + fault);
        undo.undo();
        note(s, "undone " + fault);
      }
      applied.add(new Applied(fault, said.toString(), failover));
      awaitNodesAnswering(nodes, NODES_BACK_WITHIN, s);
    }
    network.heal();
    for (Process p : clientProcesses) {
      // harmless if it was not stopped; it may also have ended meanwhile
      TestNetwork.quietly("kill", "-CONT", Long.toString(p.pid()));
    }
    for (FaultNode n : nodes) {
      n.resume();
      if (!n.isRunning()) {
        n.start();
      }
    }
    return applied;
  }

  /**
   * Appends {@code what} with the time to the run's {@code faults.log}: when each fault was applied
   * and undone, to read beside the nodes' and clients' logs.
   */
  private static void note(Settings s, String what) {
    FaultNode.appendLine(s.dir().resolve("faults.log"), java.time.Instant.now() + " " + what);
  }

  /**
   * The nodes that have not caught up once every fault is undone: each must apply what the leader
   * had committed when the check began, within {@code within}. A node still down, or up but left
   * out (a Raft server that shut itself down after a disk fault, say), is a finding: the cluster
   * would be running a node short without saying so.
   */
  private static List<String> nodesNotBack(List<FaultNode> nodes, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    FaultNode leader = Fault.leader(nodes);
    while (leader == null && System.nanoTime() < deadline) {
      Thread.sleep(200);
      leader = Fault.leader(nodes);
    }
    if (leader == null) {
      return List.of("no node leads " + within + " after the faults ended");
    }
    long commit = leader.statusNumber("commitIndex");
    List<String> notBack = new ArrayList<>();
    String members = leader.statusText("members");
    for (FaultNode n : nodes) {
      if (members != null && !List.of(members.split(",", -1)).contains(n.id())) {
        // the harness lost track of a membership change: a finding of its own, not a lag
        notBack.add(
            n.id()
                + " is not a member: leader "
                + leader.id()
                + " has members "
                + members
                + (n.isRunning() ? " while it runs" : ""));
        continue;
      }
      long applied = n.statusNumber("appliedIndex");
      while (applied < commit && System.nanoTime() < deadline) {
        Thread.sleep(200);
        applied = n.statusNumber("appliedIndex");
      }
      if (applied < commit) {
        notBack.add(
            n.id()
                + (n.isRunning() ? " is up but" : " is down and")
                + " applied "
                + applied
                + " of the leader's commit index "
                + commit
                + " "
                + within
                + " after the faults ended; "
                + leader.followerView(n.id())
                + "; its own status: "
                + n.status());
      }
    }
    return notBack;
  }

  /** Milliseconds until a node other than {@code old} says it leads; -1 if none before the end. */
  private static long awaitNewLeader(List<FaultNode> nodes, FaultNode old, long endNanos)
      throws InterruptedException {
    long start = System.nanoTime();
    while (System.nanoTime() < endNanos) {
      for (FaultNode n : nodes) {
        if (n != old && n.isRunning() && n.saysItLeads()) {
          return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }
      }
      Thread.sleep(20);
    }
    return -1;
  }

  /**
   * Waits for the clients to end; returns one line per client that did not end well (it failed, or
   * is still running {@code past} its run's end), naming its log. A client that gives up is a
   * finding: the service failed to serve it within its give-up time.
   */
  private static List<String> awaitWorkers(
      List<Process> workers, Path dir, Duration past, List<String> unavailable)
      throws InterruptedException {
    List<String> failed = new ArrayList<>();
    long deadline = System.nanoTime() + past.toNanos();
    for (int i = 0; i < workers.size(); i++) {
      Process w = workers.get(i);
      Path log = dir.resolve("client-" + (i + 1) + ".log");
      if (!w.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        // what it waits on, before it is stopped: a client that hangs is a liveness finding
        Path threads = dir.resolve("client-" + (i + 1) + "-threads.txt");
        dumpThreads(w, threads);
        failed.add(
            "client "
                + (i + 1)
                + " did not finish within "
                + past
                + " ("
                + log
                + "; its threads in "
                + threads.getFileName()
                + ")");
      } else if (w.exitValue() == FaultWorker.NEVER_CONNECTED) {
        unavailable.add("client " + (i + 1) + " never connected (" + log + ")");
      } else if (w.exitValue() != 0) {
        failed.add("client " + (i + 1) + " exited with " + w.exitValue() + " (" + log + ")");
      }
    }
    return failed;
  }

  /** Writes {@code jcmd PID Thread.print} of {@code process} to {@code file} (30 s at most). */
  private static void dumpThreads(Process process, Path file) throws InterruptedException {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    try {
      Process p =
          new ProcessBuilder(jcmd, Long.toString(process.pid()), "Thread.print")
              .redirectErrorStream(true)
              .redirectOutput(file.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      // the finding stands without the dump
    }
  }

  /**
   * The clients whose session expired although their process kept it alive: every client but the
   * one a run may freeze past its TTL on purpose ({@link Fault#FREEZE_CLIENT}). Their TTL is longer
   * than any fault, and the server measures silence on a clock that stops while it cannot listen,
   * so no partition, kill, pause or clock jump of the servers may end one.
   */
  private static List<String> sessionsLost(Settings s) throws IOException {
    List<String> lost = new ArrayList<>();
    for (int c = 1; c <= s.clients(); c++) {
      if (sessionTtl(c, s).compareTo(FaultWorker.SESSION_TTL) < 0) {
        continue; // frozen past its TTL on purpose
      }
      Path log = s.dir().resolve("client-" + c + ".log");
      if (!Files.exists(log)) {
        continue;
      }
      try (var lines = Files.lines(log)) {
        long count = lines.filter(l -> l.startsWith(FaultWorker.SESSION_LOST)).count();
        if (count > 0) {
          lost.add("client " + c + " lost its session " + count + " time(s) (" + log + ")");
        }
      }
    }
    return lost;
  }

  /**
   * The pools', the counter's and the tickets' values once every client's session has ended: polled
   * until no session but the harness's own is left and the pools are back to capacity, or {@code
   * within} passes (a session whose client could not close it ends by its TTL; a lease outlives its
   * session by its own), then read as they are. Empty, with the reason added to {@code
   * notAnswering}, if the cluster does not serve the harness (then the checks of final values are
   * skipped: the run has failed already).
   */
  private static Map<String, Long> quiescentValues(
      String addresses, Duration within, List<String> notAnswering) throws InterruptedException {
    try {
      return quiescentValues(addresses, within);
    } catch (RuntimeException e) { // SemaforException above all: no session, no answer
      notAnswering.add("the harness could not read the final values: " + e.getMessage());
      return Map.of();
    }
  }

  private static Map<String, Long> quiescentValues(String addresses, Duration within)
      throws InterruptedException {
    try (SemaforClient c = admin(addresses)) {
      long deadline = System.nanoTime() + within.toNanos();
      Map<String, Long> values = new LinkedHashMap<>();
      while (true) {
        values.clear();
        for (String pool : POOLS) {
          values.put(pool, c.semaphore(pool).value());
        }
        values.put(COUNTER, c.semaphore(COUNTER).value());
        for (String t : TICKETS) {
          values.put(t, c.semaphore(t).value());
        }
        boolean back = POOLS.stream().allMatch(p -> values.getOrDefault(p, -1L) == CAPACITY);
        boolean sessionsEnded =
            c.sessions().stream().allMatch(session -> session.sessionId() == c.sessionId());
        if ((back && sessionsEnded) || System.nanoTime() > deadline) {
          return values;
        }
        Thread.sleep(200);
      }
    }
  }

  private static Map<String, Integer> countByKind(List<Op> ops) {
    Map<String, Integer> counts = new java.util.TreeMap<>();
    for (Op op : ops) {
      counts.merge(op.kind() + " " + op.outcome(), 1, Integer::sum);
    }
    return counts;
  }

  /** Every check of the history, by name: the violations each found. */
  static Map<String, List<String>> check(List<Op> ops, Map<String, Long> finals) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    List<String> over = new ArrayList<>();
    List<String> tokens = new ArrayList<>();
    List<String> fifo = new ArrayList<>();
    for (String pool : POOLS) {
      List<Op> onPool = ops.stream().filter(o -> o.semaphore().equals(pool)).toList();
      var holds = FaultChecks.holdsOf(onPool);
      over.addAll(io.semafor.it.HistoryChecker.overCapacity(holds, CAPACITY));
      tokens.addAll(io.semafor.it.HistoryChecker.tokensOutOfOrder(holds));
      fifo.addAll(io.semafor.it.HistoryChecker.sequencesOutOfOrder(holds));
    }
    out.put("over-grant", over);
    out.put("fencing tokens", tokens);
    out.put("FIFO", fifo);
    out.put("release of unheld permits", FaultChecks.releasesOfUnheldPermits(ops));
    Map<String, Long> initial = new LinkedHashMap<>();
    for (String pool : POOLS) {
      initial.put(pool, CAPACITY);
    }
    List<String> undecided = new ArrayList<>();
    out.put("linearizable reads", linearizability(ops, initial, undecided));
    out.put(NOT_A_VIOLATION + "undecided", undecided);
    if (finals.isEmpty()) {
      return out; // the final values could not be read: "cluster not answering" says so
    }
    out.put(
        "increments",
        FaultChecks.incrementsAccountedFor(ops, COUNTER, 0, finals.getOrDefault(COUNTER, -1L)));
    List<String> tickets = new ArrayList<>();
    for (String t : TICKETS) {
      tickets.addAll(
          FaultChecks.incrementsAndTakesAccountedFor(ops, t, 0, finals.getOrDefault(t, -1L)));
    }
    out.put("WaitMany grants", tickets);
    Map<String, Long> capacity = new LinkedHashMap<>();
    Map<String, Long> after = new LinkedHashMap<>();
    for (String pool : POOLS) {
      capacity.put(pool, CAPACITY);
      after.put(pool, finals.getOrDefault(pool, -1L));
    }
    out.put("leaked permits", FaultChecks.permitsBackAtQuiescence(capacity, after));
    return out;
  }

  /**
   * The pools' histories that are not linearizable; one that the bounded search could not decide is
   * reported as undecided (not a violation, but shown, so that it is not mistaken for a pass).
   */
  private static List<String> linearizability(
      List<Op> ops, Map<String, Long> initial, List<String> undecided) {
    List<Op> onPools = ops.stream().filter(o -> initial.containsKey(o.semaphore())).toList();
    List<String> out = new ArrayList<>();
    new LinearizabilityChecker()
        .checkAll(onPools, initial)
        .forEach(
            (pool, r) -> {
              if (r.verdict() == LinearizabilityChecker.Verdict.NOT_LINEARIZABLE) {
                out.add(pool + ": " + r.explanation());
              } else if (r.verdict() == LinearizabilityChecker.Verdict.UNDECIDED) {
                undecided.add(pool + ": " + r.explanation());
              }
            });
    return out;
  }
}
