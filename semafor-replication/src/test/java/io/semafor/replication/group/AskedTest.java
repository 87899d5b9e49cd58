package io.semafor.replication.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.replication.ApplyListener;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class AskedTest {
  /** Records which refusal each kind reached, with the context it carried. */
  private static final class Refusals implements ApplyListener<String, Integer, Long> {
    final List<String> heard = new ArrayList<>();

    @Override
    public void applied(Command command, @Nullable String context, Outcome outcome, long logTime) {}

    @Override
    public void answered(Query query, @Nullable Integer context, Reply reply, long logTime) {}

    @Override
    public void refused(Command command, @Nullable String context, String leaderHint) {
      heard.add("command " + context + " -> " + leaderHint);
    }

    @Override
    public void readRefused(Query query, @Nullable Integer context, String leaderHint) {
      heard.add("read " + context + " -> " + leaderHint);
    }

    @Override
    public void snapshotRefused(@Nullable Long context, String leaderHint) {
      heard.add("snapshot " + context + " -> " + leaderHint);
    }
  }

  @Test
  void eachKindIsRefusedThroughItsOwnCallbackWithItsOwnContext() {
    Refusals listener = new Refusals();
    List<Asked<String, Integer, Long>> batch =
        List.of(
            Asked.Op.of(new Command.ContinueGrants(), "client 1"),
            new Asked.Read<>(new Entry.Read(7, new Query.Get(Name.of("x"))), 42),
            new Asked.Snapshot<>(new Entry.Snapshot(8), 99L));

    batch.forEach(asked -> asked.refuse(listener, "n2:7400"));

    assertThat(listener.heard)
        .containsExactly(
            "command client 1 -> n2:7400", "read 42 -> n2:7400", "snapshot 99 -> n2:7400");
  }

  @Test
  void whatGoesInTheEntryIsTheItemWithoutItsContext() {
    Command command = new Command.ContinueGrants();

    Asked<String, Integer, Long> asked = Asked.Op.of(command, "client 1");

    assertThat(asked.item()).isEqualTo(new Entry.Op(command));
  }
}
