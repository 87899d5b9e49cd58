package io.semafor.replication.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.SnapshotFile;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EntryApplierTest {
  private static final Name X = Name.of("x");

  /** What the listener heard, in order. */
  private final List<String> heard = new ArrayList<>();

  private final ApplyListener<String, String, String> listener =
      new ApplyListener<>() {
        @Override
        public void applied(
            Command command, @Nullable String context, Outcome outcome, long logTime) {
          heard.add("applied " + command.getClass().getSimpleName() + " for " + context);
        }

        @Override
        public void answered(Query query, @Nullable String context, Reply reply, long logTime) {
          long value = ((Result.SemaphoreStatus) reply.result()).value();
          heard.add("answered " + context + ": x=" + value);
        }

        @Override
        public void snapshotTaken(@Nullable String context, SnapshotFile.Image image) {
          heard.add(
              "snapshot for "
                  + context
                  + " at term "
                  + image.header().term()
                  + " index "
                  + image.header().index());
        }

        @Override
        public void batchEnded() {
          heard.add("batch ended");
        }
      };

  private final EntryApplier<String, String, String> applier = new EntryApplier<>(listener);
  private final SemaphoreMachine machine = new SemaphoreMachine();
  private long session;

  @BeforeEach
  void openSession() {
    Reply opened =
        java.util.Objects.requireNonNull(
            machine.apply(1, 0, new Command.OpenSession(60_000_000_000L)).reply());
    session = ((Result.SessionOpened) opened.result()).sessionId();
  }

  private Command request(long id, Operation operation) {
    return new Command.Request(session, id, List.of(), operation);
  }

  private Entry entry(List<Asked<String, String, String>> asked) {
    return new Entry(1_000, "n1", 7, asked.stream().map(Asked::item).toList());
  }

  private List<Asked<String, String, String>> createIncrementReadSnapshot() {
    return List.of(
        Asked.Op.of(request(1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)), "c1"),
        Asked.Op.of(request(2, new Operation.Increment(X, 3)), "c2"),
        new Asked.Read<>(new Entry.Read(1, new Query.Get(X)), "r1"),
        new Asked.Snapshot<>(new Entry.Snapshot(2), "s1"));
  }

  @Test
  void theMemberThatAskedAppliesItsCommandsThenAnswersItsReadAndTakesItsSnapshotInOrder() {
    List<Asked<String, String, String>> asked = createIncrementReadSnapshot();

    applier.apply(machine, entry(asked), asked, 3, 42);

    assertThat(heard)
        .containsExactly(
            "applied Request for c1",
            "applied Request for c2",
            "answered r1: x=3",
            "snapshot for s1 at term 3 index 42",
            "batch ended");
  }

  @Test
  void anotherMemberAppliesTheCommandsWithoutAnsweringReadsOrTakingSnapshots() {
    Entry proposedElsewhere = entry(createIncrementReadSnapshot());

    applier.apply(machine, proposedElsewhere, null, 3, 42);

    assertThat(heard)
        .containsExactly("applied Request for null", "applied Request for null", "batch ended");
    assertThat(((Result.SemaphoreStatus) machine.query(new Query.Get(X)).result()).value())
        .isEqualTo(3);
  }
}
