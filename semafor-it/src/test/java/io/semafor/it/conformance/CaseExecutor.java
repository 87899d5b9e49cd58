package io.semafor.it.conformance;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.conformance.CaseParser;
import io.semafor.conformance.ConformanceCase;
import io.semafor.conformance.Expectations;
import io.semafor.conformance.Outcome;
import io.semafor.conformance.Step;
import io.semafor.conformance.Step.AwaitStep;
import io.semafor.conformance.Step.EnvStep;
import io.semafor.conformance.Step.OpStep;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link ConformanceCase} with the Java client: one {@link SemaforClient} per actor, each
 * behind its own {@link ActorProxy} when the deployment has one (a single node), and the steps in
 * order. A step whose outcome does not match fails the case with an {@link AssertionError} naming
 * the case, the step and what was seen.
 */
public final class CaseExecutor implements AutoCloseable {
  /** How long a plain (not started) operation may take before the case fails. */
  private static final long STEP_MS = CaseParser.DEFAULT_AWAIT_MS;

  /** How often a {@code within_ms} read is repeated. */
  private static final long POLL_MS = 20;

  private final ConformanceCase kase;
  private final Map<String, JavaActor> actors = new LinkedHashMap<>();
  private final Map<String, ActorProxy> proxies = new HashMap<>();
  private final Map<String, JavaActor.Started> handles = new HashMap<>();
  private final Expectations expectations = new Expectations();
  private final Set<String> killed = new HashSet<>();

  private CaseExecutor(ConformanceCase kase) {
    this.kase = kase;
  }

  /**
   * Connects the case's actors to a single node at {@code server}, each through its own proxy, so
   * that every environment step can be run.
   */
  public static CaseExecutor proxied(ConformanceCase kase, InetSocketAddress server)
      throws IOException {
    CaseExecutor executor = new CaseExecutor(kase);
    try {
      for (ConformanceCase.Actor actor : kase.actors().values()) {
        ActorProxy proxy = new ActorProxy(server, actor.name());
        executor.proxies.put(actor.name(), proxy);
        executor.connect(actor, proxy.address());
      }
    } catch (RuntimeException | IOException e) {
      executor.close();
      throw e;
    }
    return executor;
  }

  /**
   * Connects the case's actors straight to {@code addresses} (a cluster's members): no proxy, so
   * only cases without cut, deafen, freeze or kill ({@code cluster-safe}) can run.
   */
  public static CaseExecutor direct(ConformanceCase kase, String addresses) {
    if (!kase.clusterSafe()) {
      throw new IllegalArgumentException(kase.name() + " is not cluster-safe");
    }
    CaseExecutor executor = new CaseExecutor(kase);
    try {
      for (ConformanceCase.Actor actor : kase.actors().values()) {
        executor.connect(actor, addresses);
      }
    } catch (RuntimeException e) {
      executor.close();
      throw e;
    }
    return executor;
  }

  private void connect(ConformanceCase.Actor actor, String addresses) {
    SemaforClient.Builder builder =
        SemaforClient.builder()
            .addresses(addresses)
            .clientName("conformance-" + actor.name())
            .answerTimeout(Duration.ofSeconds(10));
    if (actor.sessionTtlMs() != null) {
      builder.sessionTtl(Duration.ofMillis(actor.sessionTtlMs()));
    }
    actors.put(actor.name(), new JavaActor(builder.connect(), this::actorOfSession));
  }

  /** Runs every step in order; throws AssertionError at the first that does not match. */
  public void run() throws InterruptedException {
    for (Step step : kase.steps()) {
      try {
        if (step instanceof OpStep s) {
          op(s);
        } else if (step instanceof AwaitStep s) {
          await(s);
        } else {
          env((EnvStep) step);
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
    JavaActor actor = actor(s.actor());
    if (s.start() != null) {
      handles.put(s.start(), actor.start(s.op(), expectations.resolve(s.args()), this::handle));
      return;
    }
    long deadline =
        System.nanoTime()
            + TimeUnit.MILLISECONDS.toNanos(Optional.ofNullable(s.withinMs()).orElse(0L));
    while (true) {
      Outcome outcome =
          outcome(actor.start(s.op(), expectations.resolve(s.args()), this::handle), STEP_MS);
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
    JavaActor.Started started = handle(s.handle());
    if (s.pendingAfterMs() != null) {
      try {
        Object done = started.future().get(s.pendingAfterMs(), TimeUnit.MILLISECONDS);
        throw new AssertionError(
            s.handle() + ": expected still pending, but it completed with " + done);
      } catch (TimeoutException expected) {
        return;
      } catch (ExecutionException | CancellationException e) {
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

  private void env(EnvStep s) throws InterruptedException {
    if (s.kind() == Step.Env.WAIT_MS) {
      Thread.sleep(s.ms());
      return;
    }
    ActorProxy proxy = proxies.get(s.actor());
    if (proxy == null) {
      throw new AssertionError("no proxy in front of " + s.actor() + " in this deployment");
    }
    switch (s.kind()) {
      case CUT -> proxy.cut();
      case RESTORE -> proxy.restore();
      case DEAFEN -> proxy.deafen();
      case FREEZE -> proxy.freeze();
      case THAW -> proxy.thaw();
      case KILL -> {
        proxy.kill();
        killed.add(s.actor());
      }
      case WAIT_MS -> throw new AssertionError("handled above");
    }
  }

  /** Waits up to {@code ms} for the outcome; none by then fails the case. */
  private static Outcome outcome(JavaActor.Started started, long ms) throws InterruptedException {
    Object value;
    try {
      value = started.future().get(ms, TimeUnit.MILLISECONDS);
    } catch (CancellationException e) {
      return new Outcome.Cancelled();
    } catch (ExecutionException e) {
      return failure(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no outcome within " + ms + " ms", e);
    }
    return new Outcome.Result(started.result().apply(value));
  }

  private static Outcome failure(@Nullable Throwable thrown) {
    Throwable t = thrown;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof CancellationException) {
      return new Outcome.Cancelled();
    }
    if (!(t instanceof SemaforException e)) {
      throw new AssertionError("the client failed with something other than an error code", t);
    }
    return Outcome.Failure.of(e.code().name(), e.getMessage() == null ? "" : e.getMessage());
  }

  private JavaActor actor(String name) {
    JavaActor actor = actors.get(name);
    if (actor == null) {
      throw new AssertionError("no actor " + name);
    }
    return actor;
  }

  private JavaActor.Started handle(String name) {
    JavaActor.Started started = handles.get(name);
    if (started == null) {
      throw new AssertionError("no open handle " + name);
    }
    return started;
  }

  /** The actor whose client's session this is now, or "session:ID". */
  private String actorOfSession(long sessionId) {
    for (Map.Entry<String, JavaActor> a : actors.entrySet()) {
      if (a.getValue().client().sessionId() == sessionId) {
        return a.getKey();
      }
    }
    return "session:" + sessionId;
  }

  /**
   * Lets every held link flow again, then closes every client at once (a killed actor's close finds
   * no server and gives up after its answer timeout: it is not waited for past a few seconds), and
   * the proxies.
   */
  @Override
  public void close() {
    for (ActorProxy proxy : proxies.values()) {
      proxy.release();
    }
    List<Thread> closing = new ArrayList<>();
    for (Map.Entry<String, JavaActor> actor : actors.entrySet()) {
      Thread t = new Thread(actor.getValue().client()::close, "conformance-close");
      t.setDaemon(true);
      t.start();
      if (!killed.contains(actor.getKey())) { // a killed one finds no server: not waited for
        closing.add(t);
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    for (Thread t : closing) {
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (ActorProxy proxy : proxies.values()) {
      try {
        proxy.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
