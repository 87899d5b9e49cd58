package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.junit.jupiter.api.Test;

/**
 * An appender whose entry leaves the log while it reads it goes on (decision 0039): Ratis would end
 * it, and never start another for a member still being added.
 */
class GoneEntriesTest {
  private final List<String> told = new ArrayList<>();

  @Test
  void anAppenderThatFindsAnEntryGoneRunsAgainUntilItsBodyReturns() throws IOException {
    AtomicInteger runs = new AtomicInteger();
    RepairingLogAppender.runThroughGoneEntries(
        () -> {
          if (runs.incrementAndGet() < 3) {
            throw new RaftLogIOException("Log entry not found: index = 386");
          }
        },
        () -> true,
        e -> told.add(e.getMessage()));

    assertThat(runs).hasValue(3);
    assertThat(told)
        .containsExactly("Log entry not found: index = 386", "Log entry not found: index = 386");
  }

  @Test
  void anAppenderThatStoppedEndsWithTheFailureAsBefore() {
    AtomicBoolean running = new AtomicBoolean(true);
    assertThatThrownBy(
            () ->
                RepairingLogAppender.runThroughGoneEntries(
                    () -> {
                      running.set(false); // closed while it read: Ratis stops it
                      throw new RaftLogIOException("Log entry not found: index = 7");
                    },
                    running::get,
                    e -> told.add(e.getMessage())))
        .isInstanceOf(RaftLogIOException.class);
    assertThat(told).isEmpty();
  }

  @Test
  void anotherFailureEndsTheAppenderAsBefore() {
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                RepairingLogAppender.runThroughGoneEntries(
                    () -> {
                      runs.incrementAndGet();
                      throw new IOException("the stream broke");
                    },
                    () -> true,
                    e -> told.add(e.getMessage())))
        .hasMessage("the stream broke");
    assertThat(runs).hasValue(1);
  }
}
