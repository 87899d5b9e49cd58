package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.SemaphoreOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.jspecify.annotations.Nullable;

/**
 * {@code list} pages (prefix, cursor, limit) equal the naive answer — every live name sorted, then
 * filtered and cut — under random creates and deletes, also after a snapshot round trip; and the
 * name order itself agrees with a {@code TreeSet} through enough adds and removes to split and
 * merge its leaves.
 */
class ListNamesProperties {
  /**
   * Names over a small alphabet, so that prefixes share names, with a two-byte character whose
   * bytes are negative as signed bytes (order is unsigned). 1,364 names in all.
   */
  @Provide
  Arbitrary<String> names() {
    return Arbitraries.of("a", "b", "/", "é")
        .list()
        .ofMinSize(1)
        .ofMaxSize(5)
        .map(parts -> String.join("", parts));
  }

  /** Create (true) or delete (false) a name. */
  record Change(boolean create, String name) {}

  @Provide
  Arbitrary<List<Change>> changes() {
    return Combinators.combine(Arbitraries.integers().between(0, 3), names())
        .as((kind, name) -> new Change(kind > 0, name))
        .list()
        .ofMinSize(200)
        .ofMaxSize(3000);
  }

  /** A page to ask for: prefix, cursor (maybe none), limit. */
  record Page(String prefix, @Nullable String after, int limit) {}

  @Provide
  Arbitrary<List<Page>> pages() {
    Arbitrary<String> prefixes =
        Arbitraries.oneOf(Arbitraries.just(""), names().map(n -> n.substring(0, 1)), names());
    Arbitrary<@Nullable String> cursors = names().injectNull(0.4);
    return Combinators.combine(prefixes, cursors, Arbitraries.integers().between(1, 700))
        .as(Page::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(20);
  }

  /** Applies {@code changes} to {@code h}'s machine; returns the names they leave. */
  private static NavigableSet<Name> apply(List<Change> changes, Harness h) {
    TestClient c = h.connect();
    TreeSet<Name> model = new TreeSet<>();
    for (Change change : changes) {
      Name name = Name.of(change.name());
      if (change.create()) {
        c.call(new Operation.Create(name, 0, SemaphoreOptions.DEFAULT));
        model.add(name);
      } else {
        c.call(new Operation.Delete(name));
        model.remove(name);
      }
    }
    return model;
  }

  @Property(tries = 150)
  void pagesEqualTheNaiveSortedAnswer(
      @ForAll("changes") List<Change> changes, @ForAll("pages") List<Page> pages)
      throws IOException {
    Harness h = new Harness();
    NavigableSet<Name> model = apply(changes, h);
    checkPages(h.machine, model, pages);
    checkPages(restored(h.machine), model, pages);
  }

  @Property(tries = 50)
  void pagingWithTheCursorShowsEveryNameWithThePrefixOnce(
      @ForAll("changes") List<Change> changes, @ForAll("names") String prefix) {
    Harness h = new Harness();
    NavigableSet<Name> model = apply(changes, h);
    for (String p : List.of("", prefix.substring(0, 1), prefix)) {
      Name pre = Name.of(p);
      List<Name> seen = new ArrayList<>();
      Name after = null;
      while (true) {
        List<Name> page = names(h.machine, new Query.ListNames(pre, 7, after));
        seen.addAll(page);
        if (page.size() < 7) {
          break;
        }
        after = page.get(page.size() - 1);
      }
      assertThat(seen).containsExactlyElementsOf(naive(model, p, null, Integer.MAX_VALUE));
    }
  }

  /**
   * (jqwik keeps generated lists short unless told a minimum, hence the minimum sizes: the order's
   * leaves hold 512 names.) Positive: add name #n; negative: remove name #-n. Many names, in three
   * phases (mostly adds, mostly removes, mixed), so that leaves fill, split, empty and merge.
   */
  @Provide
  Arbitrary<List<Integer>> orderOperations() {
    Arbitrary<List<Integer>> adds =
        Arbitraries.integers()
            .between(-3000, 3000)
            .map(Math::abs)
            .list()
            .ofMinSize(2000)
            .ofMaxSize(4000);
    Arbitrary<List<Integer>> removes =
        Arbitraries.integers().between(1, 3000).map(n -> -n).list().ofMinSize(1000).ofMaxSize(5000);
    Arbitrary<List<Integer>> mixed =
        Arbitraries.integers().between(-3000, 3000).list().ofMaxSize(2000);
    return Combinators.combine(adds, removes, mixed)
        .as(
            (a, r, m) -> {
              List<Integer> all = new ArrayList<>(a);
              all.addAll(r);
              all.addAll(m);
              return all;
            });
  }

  @Property(tries = 60)
  void theNameOrderAgreesWithATreeSet(@ForAll("orderOperations") List<Integer> operations) {
    NameOrder order = new NameOrder();
    TreeSet<Name> model = new TreeSet<>();
    java.util.Map<Name, Semaphore> live = new java.util.HashMap<>();
    for (int op : operations) {
      // zero-padded, so that numbers added in a run arrive in name order (the append path)
      Name name = Name.of(String.format(java.util.Locale.ROOT, "s%05d", Math.abs(op)));
      if (op >= 0 && !live.containsKey(name)) {
        Semaphore s = new Semaphore(name.bytes(), name.hash(), 0, SemaphoreOptions.DEFAULT, false);
        order.add(s);
        live.put(name, s);
        model.add(name);
      } else if (op < 0 && live.containsKey(name)) {
        order.remove(live.remove(name));
        model.remove(name);
      }
    }
    assertThat(order.size()).isEqualTo(model.size());
    assertThat(visit(order, new byte[0], true)).containsExactlyElementsOf(model);
    for (Name probe : List.of(Name.of("s01500"), Name.of("s02"), Name.of("s9"), Name.of("a"))) {
      assertThat(visit(order, probe.bytes(), true))
          .containsExactlyElementsOf(model.tailSet(probe, true));
      assertThat(visit(order, probe.bytes(), false))
          .containsExactlyElementsOf(model.tailSet(probe, false));
    }
  }

  private static List<Name> visit(NameOrder order, byte[] key, boolean inclusive) {
    List<Name> out = new ArrayList<>();
    order.visitFrom(key, inclusive, s -> out.add(s.name()));
    return out;
  }

  private static void checkPages(
      SemaphoreMachine machine, NavigableSet<Name> model, List<Page> pages) {
    for (Page p : pages) {
      Name after = p.after() == null ? null : Name.of(p.after());
      assertThat(names(machine, new Query.ListNames(Name.of(p.prefix()), p.limit(), after)))
          .as("%s", p)
          .containsExactlyElementsOf(naive(model, p.prefix(), after, p.limit()));
    }
  }

  /** Every live name sorted, then filtered by prefix and cursor, then cut to the limit. */
  private static List<Name> naive(
      NavigableSet<Name> model, String prefix, @Nullable Name after, int n) {
    Name pre = Name.of(prefix);
    return model.stream()
        .filter(name -> name.startsWith(pre))
        .filter(name -> after == null || name.compareTo(after) > 0)
        .limit(n)
        .toList();
  }

  private static List<Name> names(SemaphoreMachine machine, Query.ListNames q) {
    return ((Result.NameList) machine.query(q).result()).names();
  }

  private static SemaphoreMachine restored(SemaphoreMachine machine) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    machine.writeSnapshot(new DataOutputStream(bytes));
    return SemaphoreMachine.readSnapshot(
        machine.limits(), new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
  }
}
