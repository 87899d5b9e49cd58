package io.semafor.it.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.session.SessionConfig;
import io.semafor.core.Name;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Release;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Grants through the client's session machine, the server's and the core, over a link that delays
 * frames and cuts connections ({@link LinkedMachines}): owned permits of a semaphore of 2 are
 * acquired (some waiting for a release) and released while connections break and the session is
 * resumed. Once the link heals, every acquire was granted exactly one permit and every release gave
 * one back, each answered once, and the semaphore's value is what the answers say: no grant lost on
 * a cut, none counted twice on a resend.
 */
class GrantsAcrossCutsProperties {
  private static final ByteString S = ByteString.copyFromUtf8("s");
  private static final int CAPACITY = 2;
  private static final Request RELEASE =
      Request.newBuilder().setRelease(Release.newBuilder().setName(S).setAmount(1)).build();

  /** One thing that happens to the client's caller, the link or the clock. */
  sealed interface Action {}

  /** The caller acquires one owned permit, waiting as long as it takes. */
  record Take() implements Action {}

  /** The caller releases one permit it knows it holds. */
  record Give() implements Action {}

  /** The link or the clock acts. */
  record Link(LinkAction action) implements Action {}

  @Provide
  Arbitrary<List<Action>> histories() {
    Arbitrary<Action> action =
        Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.just((Action) new Take())),
            Tuple.of(3, Arbitraries.just((Action) new Give())),
            Tuple.of(LinkAction.WEIGHT, LinkAction.any().map(Link::new).map(a -> (Action) a)));
    return action.list().ofMaxSize(80);
  }

  @Property(tries = 300)
  void noGrantIsLostOnACutNorCountedTwiceOnAResend(@ForAll("histories") List<Action> history) {
    LinkedMachines sim = new LinkedMachines(null);
    long created =
        sim.submit(
            Request.newBuilder()
                .setCreate(
                    Create.newBuilder().setName(S).setInitial(CAPACITY).setCapacity(CAPACITY))
                .build());
    List<Long> takes = new ArrayList<>();
    List<Long> gives = new ArrayList<>();
    for (Action a : history) {
      if (a instanceof Take && takes.size() - gives.size() <= CAPACITY) {
        // one more than there are: it waits until a release the client sends once granted
        takes.add(
            sim.submit(
                Request.newBuilder()
                    .setAcquire(
                        Acquire.newBuilder()
                            .setName(S)
                            .setAmount(1)
                            .setTimeoutNs(-1)
                            .setOwned(true))
                    .build()));
      } else if (a instanceof Give && granted(sim, takes) > gives.size()) {
        gives.add(sim.submit(RELEASE)); // only what the client knows it holds
      } else if (a instanceof Link l) {
        l.action().applyTo(sim);
      }
    }
    // the client gives back each permit as it learns it holds it, the link delivering everything
    for (int i = 0; i < 100_000 && gives.size() < takes.size(); i++) {
      if (granted(sim, takes) > gives.size()) {
        gives.add(sim.submit(RELEASE));
      } else {
        sim.toServer(Integer.MAX_VALUE);
        sim.toClient(Integer.MAX_VALUE);
        sim.advance(SessionConfig.MS);
      }
    }
    sim.heal();

    assertThat(gives).hasSameSizeAs(takes);
    assertThat(sim.failed).isEmpty();
    assertThat(sim.answers).containsKey(created);
    assertThat(sim.answerCount.values()).allMatch(n -> n == 1);
    for (long id : takes) {
      Response r = sim.answers.get(id);
      assertThat(r.getGranted().getAmount()).as("take %d: %s", id, r).isEqualTo(1);
    }
    for (long id : gives) {
      Response r = sim.answers.get(id);
      assertThat(r.getReleased().getAmount()).as("give %d: %s", id, r).isEqualTo(1);
    }
    assertThat(sim.node.value(Name.of("s"))).isEqualTo(CAPACITY);
  }

  /** How many of {@code takes} the client has been answered with a grant so far. */
  private static long granted(LinkedMachines sim, List<Long> takes) {
    return takes.stream()
        .filter(id -> sim.answers.containsKey(id) && sim.answers.get(id).hasGranted())
        .count();
  }
}
