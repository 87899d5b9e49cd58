package io.semafor.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.semafor.conformance.Step.AwaitStep;
import io.semafor.conformance.Step.EnvStep;
import io.semafor.conformance.Step.OpStep;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Runs one case's steps in order against a runner's actors (conformance/README.md, "Steps"): an
 * operation now or started under a handle, an await of a handle (its outcome, or that it is still
 * pending), a read repeated until it matches within {@code within_ms}, {@code wait_ms}, and the
 * other environment steps handed to the deployment. The first step that does not match fails the
 * case with an {@link AssertionError} naming the case, the step and the variables bound so far.
 *
 * <p>One loop for every Java-side runner (the Java client's, the HTTP API's), so that what a step
 * means is said once; each runner supplies only its actors and its environment. Blocks the calling
 * thread; each step's wait is bounded ({@link CaseParser#DEFAULT_AWAIT_MS} for a plain operation,
 * the case's {@code within_ms} or {@code pending_after_ms} otherwise). Not thread-safe.
 */
public final class CaseRun {
  /** How often a {@code within_ms} read is repeated. */
  private static final long POLL_MS = 20;

  /**
   * An operation under way.
   *
   * @param outcome completes with how it ended; exceptionally if the runner could not tell (the
   *     case then fails with that cause)
   * @param cancel withdraws it as its caller would (the kit's {@code cancel}); whether it was
   */
  public record Started(CompletableFuture<Outcome> outcome, BooleanSupplier cancel) {}

  /** One actor of a case, as a runner plays it. */
  public interface Actor {
    /**
     * Starts {@code op} with its arguments resolved; does not wait for it.
     *
     * @param handles the operation started under a handle name (for {@code cancel})
     */
    Started start(Op op, JsonNode args, Function<String, Started> handles);
  }

  /** The environment steps other than {@code wait_ms}, as a deployment runs them. */
  public interface Environment {
    /**
     * Applies {@code step} (cut, restore, deafen, freeze, thaw, kill of an actor's connection).
     *
     * @throws AssertionError if this deployment cannot
     */
    void apply(EnvStep step) throws InterruptedException;
  }

  private final ConformanceCase kase;
  private final Map<String, ? extends Actor> actors;
  private final Environment environment;
  private final Map<String, Started> handles = new HashMap<>();
  private final Expectations expectations = new Expectations();

  private CaseRun(
      ConformanceCase kase, Map<String, ? extends Actor> actors, Environment environment) {
    this.kase = kase;
    this.actors = actors;
    this.environment = environment;
  }

  /**
   * Runs every step of {@code kase} with {@code actors} (by the case's actor names) and {@code
   * environment}; returns when all matched.
   *
   * @throws AssertionError at the first step that does not match, or has no outcome in time
   * @throws InterruptedException if interrupted while waiting
   */
  public static void run(
      ConformanceCase kase, Map<String, ? extends Actor> actors, Environment environment)
      throws InterruptedException {
    new CaseRun(kase, actors, environment).steps();
  }

  private void steps() throws InterruptedException {
    for (Step step : kase.steps()) {
      try {
        if (step instanceof OpStep s) {
          op(s);
        } else if (step instanceof AwaitStep s) {
          await(s);
        } else if (step instanceof EnvStep s && s.kind() == Step.Env.WAIT_MS) {
          Thread.sleep(s.ms());
        } else {
          environment.apply((EnvStep) step);
        }
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            kase.name()
                + ", step "
                + step.index()
                + (step.note() == null ? "" : " (" + step.note() + ")")
                + ": "
                + e.getMessage()
                + "; variables "
                + expectations.variables(),
            e);
      }
    }
  }

  private void op(OpStep s) throws InterruptedException {
    Actor actor = actors.get(s.actor());
    if (actor == null) {
      throw new AssertionError("no actor " + s.actor());
    }
    if (s.start() != null) {
      handles.put(s.start(), actor.start(s.op(), expectations.resolve(s.args()), this::handle));
      return;
    }
    long deadline =
        System.nanoTime()
            + TimeUnit.MILLISECONDS.toNanos(Optional.ofNullable(s.withinMs()).orElse(0L));
    while (true) {
      Outcome outcome =
          outcome(
              actor.start(s.op(), expectations.resolve(s.args()), this::handle),
              CaseParser.DEFAULT_AWAIT_MS);
      Optional<String> mismatch = expectations.mismatch(s.expect(), outcome);
      if (mismatch.isEmpty()) {
        expectations.bind(s.bind(), outcome);
        return;
      }
      if (s.withinMs() == null || System.nanoTime() > deadline) {
        throw new AssertionError(
            s.actor()
                + " "
                + s.op().wireName()
                + " "
                + s.args()
                + ": "
                + mismatch.get()
                + (s.withinMs() == null ? "" : " (still, after " + s.withinMs() + " ms)"));
      }
      Thread.sleep(POLL_MS);
    }
  }

  private void await(AwaitStep s) throws InterruptedException {
    Started started = handle(s.handle());
    if (s.pendingAfterMs() != null) {
      try {
        Outcome done = started.outcome().get(s.pendingAfterMs(), TimeUnit.MILLISECONDS);
        throw new AssertionError(
            s.handle() + ": expected still pending, but it completed with " + done);
      } catch (TimeoutException expected) {
        return;
      } catch (ExecutionException e) {
        throw new AssertionError(s.handle() + ": expected still pending, but it ended: " + e, e);
      }
    }
    Outcome outcome = outcome(started, s.withinMs());
    handles.remove(s.handle());
    Optional<String> mismatch = expectations.mismatch(s.expect(), outcome);
    if (mismatch.isPresent()) {
      throw new AssertionError(s.handle() + ": " + mismatch.get());
    }
    expectations.bind(s.bind(), outcome);
  }

  /** Waits up to {@code ms} for the outcome; none by then, or none the runner could tell, fails. */
  private static Outcome outcome(Started started, long ms) throws InterruptedException {
    try {
      return started.outcome().get(ms, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new AssertionError("no outcome the kit knows: " + cause, cause);
    } catch (TimeoutException e) {
      throw new AssertionError("no outcome within " + ms + " ms", e);
    }
  }

  private Started handle(String name) {
    Started started = handles.get(name);
    if (started == null) {
      throw new AssertionError("no open handle " + name);
    }
    return started;
  }
}
