package io.semafor.raft;

import io.semafor.core.Command;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.fuzz.SeedFiles;
import io.semafor.fuzz.Story;
import io.semafor.replication.group.Entry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes {@link EntryFuzzTest}'s seeds with {@link Entry#encode}: per operation, query and edge
 * command an entry that opens session 1, creates the story's semaphores and then does it; and one
 * entry of the whole story. Runs only with {@code -Dsemafor.fuzz.writeSeeds=true}.
 */
@EnabledIfSystemProperty(named = SeedFiles.PROPERTY, matches = "true")
class EntrySeedsTest {
  @Test
  void writeSeeds() throws IOException {
    List<Entry.Item> all = new ArrayList<>(setup());
    for (Operation op : Story.OPERATIONS) {
      List<Entry.Item> items = setup();
      items.add(new Entry.Op(Story.request(items.size(), op)));
      write("op-" + op.getClass().getSimpleName(), items);
      all.add(new Entry.Op(Story.request(all.size(), op)));
    }
    int n = 0;
    for (Query q : Story.QUERIES) {
      List<Entry.Item> items = setup();
      items.add(new Entry.Read(1, q));
      write("read-" + n + "-" + q.getClass().getSimpleName(), items);
      n++;
      all.add(new Entry.Read(all.size(), q));
    }
    for (Command c : Story.EDGE_COMMANDS) {
      List<Entry.Item> items = setup();
      items.add(new Entry.Op(c));
      write("command-" + c.getClass().getSimpleName(), items);
      all.add(new Entry.Op(c));
    }
    all.add(new Entry.Snapshot(1));
    write("story", all);
  }

  private static List<Entry.Item> setup() {
    List<Entry.Item> items = new ArrayList<>();
    items.add(new Entry.Op(Story.OPEN));
    for (Operation op : Story.SETUP) {
      items.add(new Entry.Op(Story.request(items.size(), op)));
    }
    return items;
  }

  private static void write(String name, List<Entry.Item> items) throws IOException {
    SeedFiles.write(EntryFuzzTest.class, "entry", name, new Entry(1_000, "n1", 1, items).encode());
  }
}
