package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.SemaphoreOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The open-addressing name index behaves as a map, and its run order rebuilds its layout. */
class SemaphoreIndexProperties {

  /** Positive: add or get name #n; negative: remove name #-n. Few names, so runs collide. */
  @Provide
  Arbitrary<List<Integer>> operations() {
    return Arbitraries.integers().between(-300, 300).list().ofMaxSize(2000);
  }

  private static Semaphore semaphore(int n) {
    Name name = Name.of("s" + n);
    return new Semaphore(name.bytes(), name.hash(), n, SemaphoreOptions.DEFAULT, false);
  }

  @Property
  void theIndexAgreesWithAHashMap(@ForAll("operations") List<Integer> operations) {
    SemaphoreIndex index = new SemaphoreIndex();
    Map<Name, Semaphore> model = new HashMap<>();
    for (int op : operations) {
      Name name = Name.of("s" + Math.abs(op));
      if (op >= 0 && !model.containsKey(name)) {
        Semaphore s = semaphore(op);
        index.add(s);
        model.put(name, s);
      } else if (op < 0) {
        Semaphore s = model.remove(name);
        if (s != null) {
          index.remove(s);
        }
      }
      assertThat(index.get(name)).isSameAs(model.get(name));
      assertThat(index.size()).isEqualTo(model.size());
    }
    for (Map.Entry<Name, Semaphore> e : model.entrySet()) {
      assertThat(index.get(e.getKey())).isSameAs(e.getValue());
    }
  }

  @Property
  void reAddingInRunOrderRebuildsTheSameLayout(@ForAll("operations") List<Integer> operations) {
    SemaphoreIndex index = new SemaphoreIndex();
    Map<Name, Semaphore> live = new HashMap<>();
    for (int op : operations) {
      Name name = Name.of("s" + Math.abs(op));
      if (op >= 0 && !live.containsKey(name)) {
        live.put(name, semaphore(op));
        index.add(live.get(name));
      } else if (op < 0 && live.containsKey(name)) {
        index.remove(live.remove(name));
      }
    }
    List<Semaphore> order = new ArrayList<>();
    index.forEachInRunOrder(order::add);
    SemaphoreIndex rebuilt = new SemaphoreIndex(index.capacity());
    for (Semaphore s : order) {
      rebuilt.add(s);
    }
    List<Semaphore> again = new ArrayList<>();
    rebuilt.forEachInRunOrder(again::add);
    assertThat(again).containsExactlyElementsOf(order);
    assertThat(rebuilt.capacity()).isEqualTo(index.capacity());
  }
}
