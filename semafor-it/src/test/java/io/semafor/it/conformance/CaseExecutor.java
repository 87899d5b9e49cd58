package io.semafor.it.conformance;

import io.semafor.client.SemaforClient;
import io.semafor.conformance.CaseRun;
import io.semafor.conformance.ConformanceCase;
import io.semafor.conformance.Step.EnvStep;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one {@link ConformanceCase} with the Java client: one {@link SemaforClient} per actor, each
 * behind its own {@link ActorProxy} when the deployment has one (a single node), and the steps in
 * order by the kit's one runner ({@link CaseRun}). A step whose outcome does not match fails the
 * case with an {@link AssertionError} naming the case, the step and what was seen.
 */
public final class CaseExecutor implements AutoCloseable {
  private final ConformanceCase kase;
  private final Map<String, JavaActor> actors = new LinkedHashMap<>();
  private final Map<String, ActorProxy> proxies = new HashMap<>();
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

  /** Runs every step in order ({@link CaseRun}); throws AssertionError at the first mismatch. */
  public void run() throws InterruptedException {
    CaseRun.run(kase, actors, this::env);
  }

  /** An environment step on an actor's connection, through its proxy. */
  private void env(EnvStep s) {
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
      case WAIT_MS -> throw new AssertionError("wait_ms is the runner's");
    }
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
