package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.it.faults.SyncFaults;
import io.semafor.server.Main;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real thing, briefly: three cluster nodes as separate processes on 127.0.0.1, clients taking
 * and giving back owned permits through them, and the leader killed with SIGKILL (or frozen with
 * SIGSTOP past the election timeout) in the middle. Every client operation is recorded, each permit
 * held for {@link History#DEFAULT_HOLD} so that an over-grant shows, and the history checked: never
 * more held than the capacity, fencing tokens and arrival sequences in real-time order; and every
 * permit back while the clients' sessions are still open. Longer runs: raise {@code
 * -Dfault.seconds}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS) // a hung cluster must fail, not stall CI
class ClusterFaultTest {
  private static final int CLIENTS = 8;
  private static final int PERMITS = 2;
  private static final Duration RUN = Duration.ofSeconds(Long.getLong("fault.seconds", 10));

  @TempDir Path dir;
  private @Nullable ProcessCluster started;

  @AfterEach
  void stopNodes() {
    if (started != null) {
      started.close();
    }
  }

  private void startCluster() throws IOException {
    started = ProcessCluster.start(dir);
  }

  private ProcessCluster cluster() {
    return Objects.requireNonNull(started, "startCluster() first");
  }

  private int leader() {
    return cluster().leader();
  }

  private SemaforClient client() {
    return cluster().client("fault-test", Duration.ofSeconds(10));
  }

  /**
   * Runs the clients for {@link #RUN}, doing {@code fault} a third of the way in, and checks the
   * history, then the permits while the clients' sessions are still open; closes the clients.
   */
  private void clientsThrough(Runnable fault) throws Exception {
    startCluster();
    try (SemaforClient admin = client()) {
      admin.create("pool", PERMITS);
    }
    History history = new History();
    List<SemaforClient> clients = new ArrayList<>();
    try {
      List<History.Acquirer> pools = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        SemaforClient client = client();
        clients.add(client);
        pools.add(History.ownedPermitsOf(client.semaphore("pool")));
      }
      RecordedClients running = RecordedClients.run(history, pools, RUN);
      Thread.sleep(RUN.toMillis() / 3);
      fault.run();
      long faultOver = System.nanoTime();
      running.finish(Duration.ofMinutes(2));
      List<History.Hold> holds = history.holds();
      assertThat(holds).hasSizeGreaterThan(CLIENTS);
      assertThat(holds)
          .as("clients kept working on the new leader")
          .anyMatch(h -> h.acquireInvoked() > faultOver);
      RecordedClients.assertSafeAndEveryPermitBack(
          holds, clients.get(0).semaphore("pool"), PERMITS);
    } finally {
      for (SemaforClient c : clients) {
        c.close();
      }
    }
  }

  @Test
  void killingTheLeaderUnderLoadNeitherOverGrantsNorLosesAPermit() throws Exception {
    clientsThrough(
        () -> {
          int leader = leader();
          cluster().node(leader).destroyForcibly(); // SIGKILL
        });
  }

  @Test
  void freezingTheLeaderPastTheElectionTimeoutNeitherOverGrantsNorLosesAPermit() throws Exception {
    clientsThrough(
        () -> {
          try {
            long pid = cluster().node(leader()).pid();
            ProcessCluster.signal("STOP", pid);
            Thread.sleep(4_000); // past the 1-2 s election timeout: the others elect
            ProcessCluster.signal("CONT", pid); // the old leader wakes up deposed
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void aNodeWhoseLogCannotBeSyncedStopsAndCatchesUpWhenStartedAgain() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name"))
            && new java.io.File("/usr/bin/strace").canExecute(),
        "needs root and strace to make fsync fail");
    startCluster();
    try (SemaforClient client = client()) {
      NamedSemaphore counter = client.semaphore("counter");
      counter.create(0);
      int follower = (leader() + 1) % 3;
      Process victim = cluster().node(follower);
      // every fsync of the follower's JVM fails with EIO, as a failing disk's would
      Process strace = SyncFaults.failWithEio(victim.pid(), dir.resolve("strace.log"));
      try {
        long added = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (victim.isAlive() && System.nanoTime() < deadline) {
          counter.increment(1); // the two others commit it; the follower fails to sync it
          added++;
        }
        assertThat(victim.waitFor(5, TimeUnit.SECONDS)).as("the follower stopped").isTrue();
        assertThat(victim.exitValue()).isEqualTo(Main.EXIT_LOG_FAILED);
        for (int i = 0; i < 20; i++) {
          counter.increment(1);
          added++;
        }

        restartAndAwaitCaughtUp(follower);
        assertThat(counter.value()).isEqualTo(added);
      } finally {
        strace.destroyForcibly();
      }
    }
  }

  /**
   * By default Ratis closes its server after a JVM pause longer than {@code
   * raft.server.close.threshold} (60 s), which left the process up with no Raft member in it. The
   * threshold is now beyond any pause: a follower frozen for 65 s rejoins by itself and catches up.
   * Takes over a minute: runs with {@code -Dfaults.long=true} ({@code -Pfaults}).
   */
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void aFollowerFrozenPastRatisCloseThresholdRejoinsAndCatchesUp() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("faults.long"), "a 65 s pause: -Dfaults.long=true");
    startCluster();
    try (SemaforClient client = client()) {
      NamedSemaphore counter = client.semaphore("counter");
      counter.create(0);
      int follower = (leader() + 1) % 3;
      Process victim = cluster().node(follower);
      ProcessCluster.signal("STOP", victim.pid());
      long added = 0;
      long thaw = System.nanoTime() + Duration.ofSeconds(65).toNanos();
      while (System.nanoTime() < thaw) {
        counter.increment(1);
        added++;
        Thread.sleep(50);
      }
      ProcessCluster.signal("CONT", victim.pid());
      awaitCaughtUp(follower);
      assertThat(victim.isAlive()).as("the follower is still the same process").isTrue();
      assertThat(counter.value()).isEqualTo(added);
    }
  }

  /** Starts node {@code i} again and waits until it has applied what the leader has committed. */
  private void restartAndAwaitCaughtUp(int i) throws Exception {
    cluster().restart(i);
    awaitCaughtUp(i);
  }

  /** Waits until node {@code i} has applied what the leader has committed now. */
  private void awaitCaughtUp(int i) throws Exception {
    long commit = cluster().clusterNumber(leader(), "commitIndex");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> cluster().clusterNumber(i, "appliedIndex") >= commit);
  }
}
