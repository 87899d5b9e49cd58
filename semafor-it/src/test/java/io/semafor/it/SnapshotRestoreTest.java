package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SnapshotDownload;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.raft.RaftRestore;
import io.semafor.replication.ReplicatorFactory;
import io.semafor.replication.SnapshotFile;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backup and restore end to end (decision 0022): a snapshot saved while clients acquire and
 * release, from a single node and from a 3-node cluster, restored into a fresh 3-node cluster (and
 * a single node), whose every semaphore, queue, holder, lease and session is then compared with the
 * file's.
 */
@Timeout(180)
class SnapshotRestoreTest {
  /** Long enough that no restored session or lease ends while the test compares. */
  private static final Duration TTL = Duration.ofMinutes(2);

  @TempDir Path dir;

  @Test
  void aSnapshotSavedUnderLoadOnASingleNodeRestoresIntoAFreshClusterAndASingleNode()
      throws Exception {
    byte[] file;
    try (SemaforServer server =
        SemaforServer.start(ServerConfig.builder().port(0).adminPort(-1).build())) {
      String address = "127.0.0.1:" + server.address().getPort();
      file = saveUnderLoad(address, () -> client(address));
    }
    SnapshotFile.Loaded saved = SnapshotFile.read(file, Limits.DEFAULT);
    assertThat(saved.header().singleNode()).isTrue();
    restoreIntoAFreshCluster(saved);

    // a single in-memory node started from the same file (semafor server --restore)
    SnapshotFile.Loaded again = SnapshotFile.read(file, Limits.DEFAULT);
    try (SemaforServer single =
        SemaforServer.start(
            ServerConfig.builder().port(0).adminPort(-1).build(),
            ReplicatorFactory.restoring(again.machine()))) {
      String address = "127.0.0.1:" + single.address().getPort();
      assertSameState(saved.machine(), download(address).machine());
      assertServes(address);
    }
  }

  @Test
  void aSnapshotSavedUnderLoadInAClusterIsTakenAtALogPositionAndRestoresIntoAFreshCluster()
      throws Exception {
    byte[] file;
    try (TestCluster source = TestCluster.start(3, dir.resolve("source"), 100_000)) {
      file = saveUnderLoad(source.addresses(), () -> source.client(TTL));
    }
    SnapshotFile.Loaded saved = SnapshotFile.read(file, Limits.DEFAULT);
    assertThat(saved.header().singleNode()).isFalse();
    assertThat(saved.header().index()).isPositive();
    assertThat(saved.header().term()).isPositive();
    restoreIntoAFreshCluster(saved);
  }

  @Test
  void restoreRefusesADataDirectoryThatIsNotEmpty() throws Exception {
    SemaphoreMachine machine = new SemaphoreMachine();
    SnapshotFile.Image image = SnapshotFile.take(machine, -1, -1, 0);
    SnapshotFile.Loaded loaded =
        SnapshotFile.read(java.util.Arrays.copyOf(image.bytes(), image.length()), Limits.DEFAULT);
    Path used = dir.resolve("used");
    Files.createDirectories(used);
    Files.writeString(used.resolve("something"), "x");
    assertThatThrownBy(() -> RaftRestore.seed(used, loaded))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("not empty");
  }

  // ---------------------------------------------------------------------------- helpers

  private interface Clients {
    SemaforClient connect();
  }

  private static SemaforClient client(String address) {
    return SemaforClient.builder().addresses(address).sessionTtl(TTL).connect();
  }

  /**
   * Sets up semaphores with holders, leases and a waiter, then saves snapshots while four clients
   * acquire and release as fast as they can; returns the last one saved, as a file's bytes.
   */
  private static byte[] saveUnderLoad(String addresses, Clients clients) throws Exception {
    List<SemaforClient> open = new ArrayList<>();
    List<Thread> load = new ArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong cycles = new AtomicLong();
    try {
      SemaforClient holder = clients.connect();
      open.add(holder);
      for (int i = 0; i < 200; i++) {
        holder.create("s" + i, i % 7);
      }
      NamedSemaphore printers = holder.create("printers", 3);
      Permit held = printers.acquirePermit(2);
      assertThat(held.amount()).isEqualTo(2);
      NamedSemaphore leased = holder.create("leased", 5);
      leased.acquireLease(2, Duration.ofMinutes(10));
      leased.acquireLease(1, Duration.ofMinutes(10));
      SemaforClient waiter = clients.connect();
      open.add(waiter);
      NamedSemaphore empty = waiter.create("empty", 0);
      CompletableFuture<?> waiting = empty.acquirePermitAsync(1, Duration.ofMinutes(10));
      for (int t = 0; t < 4; t++) {
        SemaforClient c = clients.connect();
        open.add(c);
        NamedSemaphore s = c.create("load" + (t % 2), 1);
        Thread worker =
            new Thread(
                () -> {
                  long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                  while (!stop.get() && System.nanoTime() < until) {
                    try {
                      s.acquirePermit(1).release();
                      cycles.incrementAndGet();
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      return; // the server went away at the end of the test
                    }
                  }
                },
                "load-" + t);
        worker.setDaemon(true);
        worker.start();
        load.add(worker);
      }
      // a few snapshots while the load runs, each a consistent state of its own
      byte[] last = new byte[0];
      for (int i = 0; i < 3; i++) {
        long before = cycles.get();
        last = downloadBytes(addresses);
        SnapshotFile.Header header = SnapshotFile.verify(last);
        assertThat(header.semaphores()).isEqualTo(205);
        assertThat(cycles.get()).as("load ran meanwhile").isGreaterThanOrEqualTo(before);
      }
      assertThat(cycles.get()).as("the load made progress").isPositive();
      assertThat(waiting).isNotDone();
      return last;
    } finally {
      stop.set(true);
      for (Thread t : load) {
        t.join(10_000);
      }
      for (SemaforClient c : open) {
        c.close();
      }
    }
  }

  private static byte[] downloadBytes(String addresses) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SnapshotDownload.save(addresses, out, Duration.ofSeconds(30));
    return out.toByteArray();
  }

  private static SnapshotFile.Loaded download(String addresses) throws Exception {
    return SnapshotFile.read(downloadBytes(addresses), Limits.DEFAULT);
  }

  private void restoreIntoAFreshCluster(SnapshotFile.Loaded saved) throws Exception {
    try (TestCluster restored = TestCluster.create(3, dir.resolve("restored"), 100_000)) {
      for (int i = 0; i < restored.size(); i++) {
        restored.seed(i, saved);
        assertThat(restored.dataDir(i)).isNotEmptyDirectory();
      }
      restored.startAll();
      assertSameState(saved.machine(), download(restored.addresses()).machine());
      assertServes(restored.addresses());
    }
  }

  /** The restored node answers clients from the restored state, and takes new commands. */
  private static void assertServes(String addresses) throws Exception {
    try (SemaforClient c =
        SemaforClient.builder()
            .addresses(addresses)
            .connectTimeout(Duration.ofSeconds(10))
            .giveUpAfter(Duration.ofSeconds(30))
            .connect()) {
      assertThat(c.semaphore("s5").value()).isEqualTo(5);
      assertThat(c.semaphore("printers").value()).isEqualTo(1); // 2 of 3 held by the old session
      assertThat(c.semaphore("leased").value()).isEqualTo(2);
      NamedSemaphore empty = c.semaphore("empty");
      assertThat(empty.inspect().queue()).hasSize(1);
      empty.increment(1); // the restored waiter of the old session is served first
      assertThat(empty.value()).isZero();
      assertThat(c.create("new", 1).tryAcquire(1, Duration.ofSeconds(5))).isTrue();
    }
  }

  /**
   * Every session and every semaphore with its status, queue (with deadlines), holders (with slots)
   * and leases (with tokens and log-time ends) are the same in both machines.
   */
  static void assertSameState(SemaphoreMachine expected, SemaphoreMachine actual) {
    assertThat(describe(actual)).containsExactlyElementsOf(describe(expected));
  }

  private static List<String> describe(SemaphoreMachine m) {
    List<String> out = new ArrayList<>();
    out.add("sessions " + m.sessions());
    out.add("timers " + m.timers());
    @Nullable Name after = null;
    while (true) {
      Result.NameList names =
          (Result.NameList)
              m.query(new Query.ListNames(Name.ofBytes(new byte[0]), 10_000, after)).result();
      for (Name name : names.names()) {
        Result.SemaphoreDetail d =
            (Result.SemaphoreDetail)
                m.query(
                        new Query.Inspect(
                            name, Query.Inspect.MAX_LIMIT, Query.Position.START, 64 << 20))
                    .result();
        assertThat(d.complete()).as("one page holds everything of %s", name).isTrue();
        out.add(
            d.status()
                + " queue "
                + d.queue()
                + " holders "
                + d.holders()
                + " leases "
                + d.leases());
        after = name;
      }
      if (names.names().size() < 10_000) {
        return out;
      }
    }
  }
}
