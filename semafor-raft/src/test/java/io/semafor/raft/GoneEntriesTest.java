package io.semafor.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.junit.jupiter.api.Test;

/**
 * An appender whose entries were compacted away while it read them goes on (decision 0039): Ratis
 * would end it, and never start another for a member still being added.
 */
class GoneEntriesTest {
  private final List<String> told = new ArrayList<>();

  @Test
  void anAppenderWhoseEntriesWereCompactedAwayRunsAgainUntilItsBodyReturns() throws IOException {
    AtomicInteger runs = new AtomicInteger();
    RepairingLogAppender.runThroughGoneEntries(
        () -> {
          if (runs.incrementAndGet() < 3) {
            throw new RaftLogIOException("Log entry not found: index = 386");
          }
        },
        e -> true,
        e -> told.add(e.getMessage()));

    assertThat(runs).hasValue(3);
    assertThat(told)
        .containsExactly("Log entry not found: index = 386", "Log entry not found: index = 386");
  }

  @Test
  void aLogFailureThatIsNotACompactionEndsTheAppenderAsBefore() {
    assertThatThrownBy(
            () ->
                RepairingLogAppender.runThroughGoneEntries(
                    () -> {
                      throw new RaftLogIOException("Failed readStateMachineData");
                    },
                    e -> false, // the follower's next entry is still in the log
                    e -> told.add(e.getMessage())))
        .isInstanceOf(RaftLogIOException.class)
        .hasMessage("Failed readStateMachineData");
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
                    e -> true,
                    e -> told.add(e.getMessage())))
        .hasMessage("the stream broke");
    assertThat(runs).hasValue(1);
  }

  @Test
  void theRatisBufferThatAFailedReadLeavesFullCanBeCleared() {
    // without it, the next request after a failed read fails Ratis's "buffer is empty" check and
    // the appender ends anyway; a Ratis upgrade that renames the field must fail here
    assertThat(RepairingLogAppender.BUFFER).isNotNull();
  }
}
