package io.semafor.core.model;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generates scripts of actions: mostly valid operations on a few names, some invalid ones. */
final class Scripts {
  static final int CLIENTS = 4;
  static final int KINDS = 18;

  private Scripts() {}

  static Arbitrary<List<Action>> scripts(int minLength, int maxLength) {
    return action().list().ofMinSize(minLength).ofMaxSize(maxLength);
  }

  static Arbitrary<Action> action() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, connect()),
        net.jqwik.api.Tuple.of(1, client().map(Action.Close::new)),
        net.jqwik.api.Tuple.of(30, send()),
        net.jqwik.api.Tuple.of(
            2,
            Arbitraries.integers()
                .between(0, CLIENTS - 1)
                .flatMap(
                    c ->
                        Arbitraries.integers()
                            .between(0, 7)
                            .map(p -> (Action) new Action.Retry(c, p)))),
        net.jqwik.api.Tuple.of(5, Arbitraries.integers().between(1, 4000).map(Action.Tick::new)),
        net.jqwik.api.Tuple.of(2, client().map(Action.KeepAlive::new)),
        net.jqwik.api.Tuple.of(
            1,
            Combinators.combine(client(), Arbitraries.of(true, false))
                .as(Action.ExpireSession::new)),
        net.jqwik.api.Tuple.of(
            4,
            Combinators.combine(
                    Arbitraries.integers().between(0, 7), Arbitraries.integers().between(0, 2))
                .as(Action.Fire::new)),
        net.jqwik.api.Tuple.of(
            1,
            Combinators.combine(client(), Arbitraries.integers().between(0, 7))
                .as(Action.FireStale::new)));
  }

  /** Operation kinds (see {@link Driver}), weighted towards what makes waiters and grants. */
  private static Arbitrary<Integer> kind() {
    return weighted(3, 1, 3, 10, 8, 8, 4, 3, 6, 5, 2, 2, 2, 4, 2, 3, 2, 0);
  }

  /** 0..weights.length-1, each as often as its weight says. */
  private static Arbitrary<Integer> weighted(int... weights) {
    List<Integer> values = new java.util.ArrayList<>();
    for (int v = 0; v < weights.length; v++) {
      for (int i = 0; i < weights[v]; i++) {
        values.add(v);
      }
    }
    return Arbitraries.of(values);
  }

  private static Arbitrary<Integer> client() {
    return Arbitraries.integers().between(0, CLIENTS - 1);
  }

  private static Arbitrary<Action> connect() {
    return Arbitraries.integers().between(1, 20).map(Action.Connect::new);
  }

  private static Arbitrary<Action> send() {
    Arbitrary<Long> amount =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(20, Arbitraries.longs().between(1, 4)),
            net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(-1, 0)),
            net.jqwik.api.Tuple.of(1, Arbitraries.of(Long.MAX_VALUE, Long.MAX_VALUE - 1, 6L)));
    return Combinators.combine(
            List.of(
                client().map(Long::valueOf),
                kind().map(Long::valueOf),
                weighted(12, 12, 12, 1, 1).map(Long::valueOf),
                weighted(12, 12, 12, 1, 1).map(Long::valueOf),
                amount,
                Arbitraries.longs().between(-3, 3),
                weighted(3, 5, 3, 2, 1).map(Long::valueOf),
                Arbitraries.integers().between(0, 15).map(Long::valueOf),
                Arbitraries.integers().between(0, 7).map(Long::valueOf),
                Arbitraries.integers().between(0, 2).map(Long::valueOf)))
        .as(
            v ->
                new Action.Send(
                    v.get(0).intValue(),
                    v.get(1).intValue(),
                    v.get(2).intValue(),
                    v.get(3).intValue(),
                    v.get(4),
                    v.get(5),
                    v.get(6).intValue(),
                    v.get(7).intValue(),
                    v.get(8).intValue(),
                    v.get(9).intValue()));
  }
}
