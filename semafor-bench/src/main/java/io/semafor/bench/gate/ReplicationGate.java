package io.semafor.bench.gate;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.group.GroupMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Decision 0043's gate: one member of a three-member group per JVM, either Semafor's Ratis
 * replicator or MicroRaft on one Netty event loop, under the same closed-loop load on the member
 * that drives it. Run by {@code semafor-bench/replication-gate.sh}, which starts the two other
 * members first and passes their PIDs, so the driver can count every member's CPU and wake-ups.
 *
 * <pre>
 * ReplicationGate --impl ratis|microraft --id n1 --peers n1=h:cp:rp,n2=...,n3=... --data DIR
 *     [--drive --pids P2,P3 --clients 1,64 --warmup S --measure S]
 *     [--command-bytes 41] [--in-flight 1] [--fsync]
 * </pre>
 *
 * A member without {@code --drive} runs until it is stopped. The driver prints one Markdown row per
 * client count and exits.
 */
public final class ReplicationGate {
  private ReplicationGate() {}

  public static void main(String[] args) throws Exception {
    String impl = "";
    String id = "";
    String peers = "";
    String data = "";
    boolean drive = false;
    List<Long> pids = new ArrayList<>();
    List<Integer> clients = List.of(1, 64);
    int warmup = 20;
    int measure = 10;
    int commandBytes = 41;
    int inFlight = 1;
    boolean fsync = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--impl" -> impl = args[++i];
        case "--id" -> id = args[++i];
        case "--peers" -> peers = args[++i];
        case "--data" -> data = args[++i];
        case "--drive" -> drive = true;
        case "--pids" -> {
          for (String p : args[++i].split(",", -1)) {
            pids.add(Long.parseLong(p.trim()));
          }
        }
        case "--clients" -> {
          List<Integer> list = new ArrayList<>();
          for (String c : args[++i].split(",", -1)) {
            list.add(Integer.parseInt(c.trim()));
          }
          clients = list;
        }
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        case "--measure" -> measure = Integer.parseInt(args[++i]);
        case "--command-bytes" -> commandBytes = Integer.parseInt(args[++i]);
        case "--in-flight" -> inFlight = Integer.parseInt(args[++i]);
        case "--fsync" -> fsync = true;
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    List<GroupMember> members = ClusterSpec.parseMembers(peers);
    GateReplica replica =
        switch (impl) {
          case "ratis" ->
              new RatisReplica(
                  id,
                  members,
                  Path.of(data),
                  drive,
                  fsync ? ClusterSpec.Durability.FSYNC : ClusterSpec.Durability.REPLICATED);
          case "microraft" ->
              new MicroRaftReplica(
                  id, members, Path.of(data), drive, commandBytes, inFlight, fsync);
          default -> throw new IllegalArgumentException("--impl: ratis or microraft, not " + impl);
        };
    Runtime.getRuntime().addShutdownHook(new Thread(replica::close, "gate-close"));
    if (!drive) {
      new CountDownLatch(1).await();
      return;
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!replica.leads()) {
      if (System.nanoTime() > deadline) {
        System.err.println("the driving member was not elected within 60 s");
        System.exit(1);
      }
      Thread.sleep(50);
    }
    int most = clients.stream().mapToInt(Integer::intValue).max().orElse(1);
    if (replica instanceof RatisReplica ratis) {
      ratis.prepare(most);
    }
    List<Long> all = new ArrayList<>();
    all.add(ProcessHandle.current().pid());
    all.addAll(pids);
    GateLoad load = new GateLoad(impl + (inFlight > 1 ? " ×" + inFlight : ""), replica, all);
    System.out.println(GateLoad.HEADER);
    for (int c : clients) {
      GateLoad.Window w = load.run(c, Duration.ofSeconds(warmup), Duration.ofSeconds(measure));
      System.out.println(w.line());
    }
    System.exit(0);
  }
}
