package io.semafor.bench.gate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A closed loop of clients on the leader: each client has one command in flight and sends the next
 * as soon as the last is committed. Commits are handed to one client thread, as the server hands an
 * applied command to an event loop to answer, and the next command is submitted from there.
 * Measures a window after a warm-up: commands and entries per second, command latency, and the CPU
 * and wake-ups of every member's process per entry.
 */
final class GateLoad {
  /** One window's figures. */
  record Window(
      String impl,
      int clients,
      double seconds,
      long commands,
      long entries,
      long refused,
      Histogram latencyNanos,
      List<ProcessCounters> perMember) {
    String line() {
      double perEntry = Math.max(entries, 1);
      StringBuilder cpu = new StringBuilder();
      StringBuilder wakes = new StringBuilder();
      long cpuTotal = 0;
      int ended = 0;
      for (ProcessCounters p : perMember) {
        ended += p.threadsEnded();
        cpu.append(cpu.length() == 0 ? "" : " / ")
            .append(Math.round(p.cpuNanos() / perEntry / 1e3));
        wakes
            .append(wakes.length() == 0 ? "" : " / ")
            .append(String.format("%.1f", p.switches() / perEntry));
        cpuTotal += p.cpuNanos();
      }
      return String.format(
          "| %s | %d | %,.0f | %,.0f | %.1f | %,d / %,d | %s (total %,d) | %s | %d | %d |",
          impl,
          clients,
          commands / seconds,
          entries / seconds,
          commands / perEntry,
          latencyNanos.getValueAtPercentile(50) / 1000,
          latencyNanos.getValueAtPercentile(99) / 1000,
          cpu,
          Math.round(cpuTotal / perEntry / 1e3),
          wakes,
          refused,
          ended);
    }
  }

  static final String HEADER =
      "| impl | clients | commands/s | entries/s | commands/entry | latency p50 / p99 µs"
          + " | CPU µs per entry, leader / followers | wake-ups per entry, leader / followers"
          + " | refused | threads ended in the window |\n|---|---|---|---|---|---|---|---|---|---|";

  private final String impl;
  private final GateReplica replica;
  private final List<Long> pids;

  GateLoad(String impl, GateReplica replica, List<Long> pids) {
    this.impl = impl;
    this.replica = replica;
    this.pids = pids;
  }

  Window run(int clients, Duration warmup, Duration measure) throws InterruptedException {
    ExecutorService clientThread =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "gate-clients"));
    Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    long[] started = new long[clients];
    AtomicLong commands = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicInteger outstanding = new AtomicInteger();
    boolean[] running = {true};
    boolean[] measuring = {false};
    GateReplica.Committed[] callbacks = new GateReplica.Committed[clients];
    for (int c = 0; c < clients; c++) {
      int client = c;
      callbacks[c] =
          ok ->
              clientThread.execute(
                  () -> {
                    long now = System.nanoTime();
                    if (measuring[0]) {
                      latency.recordValue(
                          Math.min(now - started[client], latency.getHighestTrackableValue()));
                      commands.incrementAndGet();
                      if (!ok) {
                        refused.incrementAndGet();
                      }
                    }
                    if (running[0]) {
                      started[client] = now;
                      replica.submit(client, callbacks[client]);
                    } else {
                      outstanding.decrementAndGet();
                    }
                  });
    }
    clientThread.execute(
        () -> {
          for (int c = 0; c < clients; c++) {
            outstanding.incrementAndGet();
            started[c] = System.nanoTime();
            replica.submit(c, callbacks[c]);
          }
        });
    Thread.sleep(warmup.toMillis());
    long[] window = new long[2];
    List<Map<Long, long[]>> before = new ArrayList<>();
    submitAndWait(
        clientThread,
        () -> {
          measuring[0] = true;
          window[0] = System.nanoTime();
        });
    long firstIndex = replica.commitIndex();
    for (long pid : pids) {
      before.add(ProcessCounters.threadsOf(pid));
    }
    Thread.sleep(measure.toMillis());
    List<ProcessCounters> used = new ArrayList<>();
    for (int i = 0; i < pids.size(); i++) {
      used.add(ProcessCounters.between(before.get(i), ProcessCounters.threadsOf(pids.get(i))));
    }
    long lastIndex = replica.commitIndex();
    Histogram copy = new Histogram(latency.getHighestTrackableValue(), 3);
    long[] counted = new long[2];
    submitAndWait(
        clientThread,
        () -> {
          measuring[0] = false;
          running[0] = false;
          window[1] = System.nanoTime();
          copy.add(latency);
          counted[0] = commands.get();
          counted[1] = refused.get();
        });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (outstanding.get() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    clientThread.shutdown();
    clientThread.awaitTermination(5, TimeUnit.SECONDS);
    return new Window(
        impl,
        clients,
        (window[1] - window[0]) / 1e9,
        counted[0],
        lastIndex - firstIndex,
        counted[1],
        copy,
        used);
  }

  private static void submitAndWait(ExecutorService executor, Runnable task)
      throws InterruptedException {
    try {
      executor.submit(task).get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the client thread did not answer", e);
    }
  }
}
