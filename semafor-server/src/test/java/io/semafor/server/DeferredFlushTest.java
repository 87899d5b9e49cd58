package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Watch events written by several batches in one turn of their loop leave in one flush, at the
 * turn's end (after the tasks that were queued before it), and one connection's flushes are at
 * least a millisecond apart (a queue of tasks and a fake clock stand in for a channel's event
 * loop).
 */
class DeferredFlushTest {
  private final ArrayDeque<Runnable> loop = new ArrayDeque<>();
  private final TreeMap<Long, Runnable> timers = new TreeMap<>();
  private final List<String> happened = new ArrayList<>();
  private final DeferredFlush flush = new DeferredFlush();
  private long now = 5_000_000_000L;

  private void runLoop() {
    for (Runnable task = loop.poll(); task != null; task = loop.poll()) {
      task.run();
    }
  }

  /** The clock moves on by {@code nanos}; timers due by then run, then the loop. */
  private void advance(long nanos) {
    now += nanos;
    while (!timers.isEmpty() && timers.firstKey() <= now) {
      timers.pollFirstEntry().getValue().run();
    }
    runLoop();
  }

  private void batch(String name) {
    happened.add("write " + name);
    flush.soon(
        loop::add,
        (task, delay) -> timers.put(now + delay, task),
        () -> happened.add("flush at " + (now - 5_000_000_000L) / 1_000 + " µs"),
        () -> now);
  }

  @Test
  void batchesQueuedOnTheLoopBeforeTheFlushLeaveInIt() {
    loop.add(() -> batch("1"));
    loop.add(() -> batch("2")); // a later batch's delivery, queued before the first one ran
    runLoop();
    assertThat(happened).containsExactly("write 1", "write 2", "flush at 0 µs");
  }

  @Test
  void nothingIsFlushedBeforeTheLoopRunsTheFlush() {
    batch("1");
    batch("2");
    assertThat(happened).containsExactly("write 1", "write 2");
    runLoop();
    assertThat(happened).containsExactly("write 1", "write 2", "flush at 0 µs");
  }

  @Test
  void aBatchAMillisecondAfterTheLastFlushIsFlushedAtTheEndOfTheTurn() {
    batch("1");
    runLoop();
    advance(1_000_000);
    batch("2");
    runLoop();
    assertThat(happened).containsExactly("write 1", "flush at 0 µs", "write 2", "flush at 1000 µs");
  }

  @Test
  void batchesWithinAMillisecondOfTheLastFlushWaitForItToPassAndLeaveTogether() {
    batch("1");
    runLoop();
    advance(300_000);
    batch("2");
    runLoop();
    advance(300_000);
    batch("3");
    runLoop();
    assertThat(happened).containsExactly("write 1", "flush at 0 µs", "write 2", "write 3");
    advance(400_000);
    assertThat(happened)
        .containsExactly("write 1", "flush at 0 µs", "write 2", "write 3", "flush at 1000 µs");
  }
}
