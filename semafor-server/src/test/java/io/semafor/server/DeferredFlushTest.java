package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Watch events written by several batches in one turn of their loop leave in one flush, at the
 * turn's end: after the tasks that were queued before it (a loop of queued tasks stands in for a
 * channel's event loop).
 */
class DeferredFlushTest {
  private final ArrayDeque<Runnable> loop = new ArrayDeque<>();
  private final List<String> happened = new ArrayList<>();
  private final DeferredFlush flush = new DeferredFlush();

  private void runLoop() {
    for (Runnable task = loop.poll(); task != null; task = loop.poll()) {
      task.run();
    }
  }

  private void batch(String name) {
    happened.add("write " + name);
    flush.soon(loop::add, () -> happened.add("flush"));
  }

  @Test
  void batchesQueuedOnTheLoopBeforeTheFlushLeaveInIt() {
    loop.add(() -> batch("1"));
    loop.add(() -> batch("2")); // a later batch's delivery, queued before the first one ran
    runLoop();
    assertThat(happened).containsExactly("write 1", "write 2", "flush");
  }

  @Test
  void nothingIsFlushedBeforeTheLoopRunsTheFlush() {
    batch("1");
    batch("2");
    assertThat(happened).containsExactly("write 1", "write 2");
    runLoop();
    assertThat(happened).containsExactly("write 1", "write 2", "flush");
  }

  @Test
  void aBatchAfterTheFlushGetsAFlushOfItsOwn() {
    batch("1");
    runLoop();
    batch("2");
    runLoop();
    assertThat(happened).containsExactly("write 1", "flush", "write 2", "flush");
  }
}
