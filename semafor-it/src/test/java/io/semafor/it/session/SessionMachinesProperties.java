package io.semafor.it.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.internal.session.ClientSession;
import io.semafor.protocol.v1.Response;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The client's session machine ({@link ClientSession}) against the server's ({@link
 * io.semafor.server.session.ServerSession}) and the core, through a simulated link: frames wait in
 * flight until delivered (time passing meanwhile), and a cut loses what is in flight both ways, so
 * the client resends on a new connection what the server may or may not have applied (a duplicate
 * at the server). TCP neither drops nor duplicates a frame within a connection, so those faults are
 * these. Whatever happens, once the link heals every request is applied exactly once (the counter
 * ends at their sum) and answered exactly once, with the reply it was applied with.
 */
class SessionMachinesProperties {

  /** One thing that happens to the client's caller, the link or the clock. */
  sealed interface Action {}

  /** The caller submits an increment of {@code amount}. */
  record Submit(int amount) implements Action {}

  /** The link or the clock acts. */
  record Link(LinkAction action) implements Action {}

  @Provide
  Arbitrary<List<Action>> histories() {
    Arbitrary<Action> action =
        Arbitraries.frequencyOf(
            Tuple.of(5, Arbitraries.integers().between(1, 3).map(Submit::new).map(a -> (Action) a)),
            Tuple.of(LinkAction.WEIGHT, LinkAction.any().map(Link::new).map(a -> (Action) a)));
    return action.list().ofMaxSize(80);
  }

  @Property(tries = 300)
  void everyRequestIsAppliedOnceAndAnsweredOnceWithItsReply(
      @ForAll("histories") List<Action> history) {
    LinkedMachines sim = new LinkedMachines(null);
    for (Action a : history) {
      if (a instanceof Submit s) {
        sim.submit(s.amount());
      } else if (a instanceof Link l) {
        l.action().applyTo(sim);
      }
    }
    sim.heal();

    assertThat(sim.failed).isEmpty();
    assertThat(sim.answers.keySet()).containsExactlyInAnyOrderElementsOf(sim.submitted.keySet());
    assertThat(sim.answerCount.values()).allMatch(n -> n == 1);
    assertThat(sim.answers.values()).allMatch(Response::hasIncremented, "answered as applied");
    long total = sim.submitted.values().stream().mapToLong(Integer::longValue).sum();
    assertThat(sim.node.value(LinkedMachines.COUNTER)).isEqualTo(total);
    // each answer is the value its own increment left: all different, the last one the total
    assertThat(sim.answers.values().stream().map(r -> r.getIncremented().getValue()).distinct())
        .hasSameSizeAs(sim.answers.values());
    if (total > 0) {
      assertThat(
              sim.answers.values().stream()
                  .mapToLong(r -> r.getIncremented().getValue())
                  .max()
                  .orElse(0))
          .isEqualTo(total);
    }
  }
}
