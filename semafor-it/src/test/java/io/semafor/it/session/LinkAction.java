package io.semafor.it.session;

import io.semafor.client.internal.session.SessionConfig;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

/**
 * What the link between the two machines or the clock does in a property's history: carry some
 * frames one way, let time pass, cut the connection.
 */
sealed interface LinkAction {
  /** Carries up to {@code frames} frames from the client to the server. */
  record ToServer(int frames) implements LinkAction {}

  /** Carries up to {@code frames} frames (or the close) from the server to the client. */
  record ToClient(int frames) implements LinkAction {}

  /** Lets {@code millis} pass, the client's timers firing on the way. */
  record Advance(long millis) implements LinkAction {}

  /** Breaks the connection, losing what is in flight both ways. */
  record Cut() implements LinkAction {}

  /** Does it to {@code sim}. */
  default void applyTo(LinkedMachines sim) {
    if (this instanceof ToServer t) {
      sim.toServer(t.frames());
    } else if (this instanceof ToClient t) {
      sim.toClient(t.frames());
    } else if (this instanceof Advance a) {
      sim.advance(a.millis() * SessionConfig.MS);
    } else {
      sim.cutAndTell();
    }
  }

  /** The weight of the link's actions together, beside a caller's own (5 for frames each way). */
  int WEIGHT = 14;

  /** Link actions as the properties draw them: frames either way often, time less, a cut rarely. */
  static Arbitrary<LinkAction> any() {
    return Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.integers().between(1, 6).map(ToServer::new)),
        Tuple.of(5, Arbitraries.integers().between(1, 6).map(ToClient::new)),
        Tuple.of(3, Arbitraries.longs().between(0, 1200).map(Advance::new)),
        Tuple.of(1, Arbitraries.just(new Cut())));
  }
}
