package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.core.Name;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The console's streams hear only of changes to what they show. */
class ConsoleFeedTest {
  private static final class Counting implements ConsoleFeed.Listener {
    private final Name prefix;
    final AtomicInteger pokes = new AtomicInteger();

    Counting(String prefix) {
      this.prefix = Name.of(prefix);
    }

    @Override
    public boolean shows(Name name) {
      return name.startsWith(prefix);
    }

    @Override
    public void poke() {
      pokes.incrementAndGet();
    }
  }

  @Test
  void aChangeUnderAStreamsPrefixPokesItAndOneElsewhereDoesNot() {
    ConsoleFeed feed = new ConsoleFeed();
    Counting jobs = new Counting("jobs/");
    feed.add(jobs);
    feed.changed(List.of(Name.of("printers")));
    assertThat(jobs.pokes).hasValue(0);
    feed.changed(List.of(Name.of("jobs/1")));
    assertThat(jobs.pokes).hasValue(1);
  }

  @Test
  void aCommandThatChangedSeveralShownNamesPokesOnce() {
    ConsoleFeed feed = new ConsoleFeed();
    Counting all = new Counting("");
    feed.add(all);
    feed.changed(List.of(Name.of("a"), Name.of("b"), Name.of("c")));
    assertThat(all.pokes).hasValue(1);
  }

  @Test
  void aRemovedStreamIsNoLongerPoked() {
    ConsoleFeed feed = new ConsoleFeed();
    Counting all = new Counting("");
    feed.add(all);
    feed.remove(all);
    feed.changed(List.of(Name.of("a")));
    assertThat(all.pokes).hasValue(0);
  }
}
