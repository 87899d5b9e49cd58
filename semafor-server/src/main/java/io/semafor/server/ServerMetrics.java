package io.semafor.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemopOp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * The server's Prometheus metrics. Per semaphore: value, queue depth, holders (gauges refreshed at
 * each scrape), grants and waits that ended without one (counters) and how long grants waited (a
 * histogram, in log time). Server-wide: sessions, connections, commands applied, and the time and
 * size of each batch the apply loop runs. Process-wide: the JVM's memory, garbage collection,
 * threads and classes, CPU, file descriptors and uptime (Micrometer's binders), and {@code
 * semafor_build_info}.
 *
 * <p>Cardinality: per-semaphore series exist for at most {@code maxSemaphoreSeries} semaphores (the
 * first to be granted or, for gauges, the first by name); the rest are counted under {@code
 * name="_other"}. {@code semafor_semaphores} gives the total either way.
 *
 * <p>{@link #applied} and {@link #batchEnded} run on the applying thread only; the rest is
 * thread-safe.
 */
public final class ServerMetrics implements AutoCloseable {
  /** The {@code name} tag of everything beyond the per-semaphore cap. */
  public static final String OTHER = "_other";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final int maxSemaphoreSeries;
  private final Counter commands;
  private final Timer applyBatch;
  private final DistributionSummary batchSize;
  private final MultiGauge values;
  private final MultiGauge queueDepths;
  private final MultiGauge holders;
  private final ConcurrentHashMap<String, SemaphoreMeters> perSemaphore = new ConcurrentHashMap<>();
  private final SemaphoreMeters other;

  /** Listens to the JVM's GC notifications until closed. */
  private final JvmGcMetrics gc = new JvmGcMetrics();

  /** Written on the applying thread only; read by scrapes. */
  private final AtomicLong semaphoreCount = new AtomicLong();

  /**
   * Requests waiting now, and since when in log time. Written on the applying thread only; read by
   * the console's threads ({@link #waitingSince}).
   */
  private final Map<WaitKey, Waiting> waiting = new java.util.concurrent.ConcurrentHashMap<>();

  private long batchStartNanos;
  private int batchCommands;

  private record WaitKey(long sessionId, long requestId) {}

  private record Waiting(Operation op, long since) {}

  /** The meters of one semaphore (or of all beyond the cap). */
  private record SemaphoreMeters(Counter grants, Counter timeouts, Timer waitTime) {}

  ServerMetrics(int maxSemaphoreSeries, IntSupplier sessions, IntSupplier connections) {
    this.maxSemaphoreSeries = maxSemaphoreSeries;
    Gauge.builder("semafor_sessions", sessions::getAsInt)
        .description("Live sessions")
        .register(registry);
    Gauge.builder("semafor_connections", connections::getAsInt)
        .description("Open client connections")
        .register(registry);
    Gauge.builder("semafor_semaphores", semaphoreCount, AtomicLong::get)
        .description("Semaphores that exist")
        .register(registry);
    this.commands =
        Counter.builder("semafor_commands")
            .description("Commands applied to the state machine")
            .register(registry);
    this.applyBatch =
        Timer.builder("semafor_apply_batch")
            .description("Time the apply loop took per batch of queued commands")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofNanos(500))
            .maximumExpectedValue(Duration.ofSeconds(1))
            .register(registry);
    this.batchSize =
        DistributionSummary.builder("semafor_apply_batch_commands")
            .description("Commands applied per batch")
            .register(registry);
    this.values =
        MultiGauge.builder("semafor_semaphore_value")
            .description("Free permits")
            .register(registry);
    this.queueDepths =
        MultiGauge.builder("semafor_semaphore_waiters")
            .description("Requests waiting in the semaphore's queue")
            .register(registry);
    this.holders =
        MultiGauge.builder("semafor_semaphore_holders")
            .description("Sessions owning permits of the semaphore")
            .register(registry);
    this.other = meters(OTHER);
    // an info metric of the Prometheus client itself: a Micrometer gauge named *_info loses the
    // suffix (the client reserves it for this type)
    Info.builder()
        .name("semafor_build_info")
        .help("Always 1; the version label says which build this server runs")
        .labelNames("version")
        .register(registry.getPrometheusRegistry())
        .setLabelValues(BuildInfo.version());
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
  }

  private SemaphoreMeters meters(String name) {
    Tags tags = Tags.of("name", name);
    return new SemaphoreMeters(
        Counter.builder("semafor_semaphore_grants")
            .description("Requests granted (acquire, decrement, lease, semop, WaitMany entry)")
            .tags(tags)
            .register(registry),
        Counter.builder("semafor_semaphore_timeouts")
            .description("Waits that ended without a grant (timed out or cancelled)")
            .tags(tags)
            .register(registry),
        Timer.builder("semafor_semaphore_wait")
            .description("How long granted requests waited, in the server's log time")
            .tags(tags)
            // 16 fixed buckets (+Inf): Micrometer's percentile histogram gave 88 per semaphore,
            // 88,000 series at the default cap of 1,000 semaphores
            .serviceLevelObjectives(WAIT_BUCKETS)
            .register(registry));
  }

  /** The wait histogram's bucket bounds: from a millisecond to ten minutes, about ×2–2.5 apart. */
  private static final Duration[] WAIT_BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(5),
    Duration.ofMinutes(10)
  };

  private SemaphoreMeters metersOf(Name name) {
    String text = text(name);
    SemaphoreMeters m = perSemaphore.get(text);
    if (m != null) {
      return m;
    }
    if (perSemaphore.size() >= maxSemaphoreSeries) {
      return other;
    }
    return perSemaphore.computeIfAbsent(text, this::meters);
  }

  private static String text(Name name) {
    return new String(name.toBytes(), StandardCharsets.UTF_8);
  }

  /**
   * When the request {@code requestId} of session {@code sessionId} started waiting, in log time;
   * -1 if this node does not know (it started waiting before this node was restored from a
   * snapshot, or it waits no longer). Any thread.
   */
  long waitingSince(long sessionId, long requestId) {
    Waiting w = waiting.get(new WaitKey(sessionId, requestId));
    return w == null ? -1 : w.since();
  }

  /**
   * The wait histogram of {@code name} for the console: bucket bounds in milliseconds, the
   * cumulative count of grants at or under each, the count and sum of all; empty if the semaphore
   * has no series of its own (beyond the cap, or nothing granted yet). Any thread.
   */
  Map<String, Object> waitHistogram(Name name) {
    SemaphoreMeters m = perSemaphore.get(text(name));
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    if (m == null) {
      return out;
    }
    io.micrometer.core.instrument.distribution.HistogramSnapshot snapshot =
        m.waitTime().takeSnapshot();
    List<Double> bounds = new java.util.ArrayList<>();
    List<Double> counts = new java.util.ArrayList<>();
    for (io.micrometer.core.instrument.distribution.CountAtBucket b : snapshot.histogramCounts()) {
      bounds.add(b.bucket(TimeUnit.MILLISECONDS));
      counts.add(b.count());
    }
    out.put("boundsMillis", bounds);
    out.put("cumulativeCounts", counts);
    out.put("count", snapshot.count());
    out.put("sumMillis", snapshot.total(TimeUnit.MILLISECONDS));
    return out;
  }

  /** The registry, for the admin endpoint. */
  PrometheusMeterRegistry registry() {
    return registry;
  }

  // ------------------------------------------------------------------ on the applying thread

  /**
   * A command was applied: its own reply (null if it now waits), and among its effects the replies
   * of requests that had waited and completed because of it.
   */
  void applied(Command command, Outcome outcome, long logTime) {
    Reply reply = outcome.reply();
    if (batchCommands++ == 0) {
      batchStartNanos = System.nanoTime();
    }
    commands.increment();
    if (command instanceof Command.Request request) {
      Operation op = request.operation();
      if (reply == null) {
        if (isWait(op)) {
          waiting.putIfAbsent(
              new WaitKey(request.sessionId(), request.requestId()), new Waiting(op, logTime));
        }
      } else {
        ended(op, reply.result(), 0);
        if (op instanceof Operation.Create
            && reply.result() instanceof Result.Created c
            && c.created()) {
          semaphoreCount.incrementAndGet();
        } else if (op instanceof Operation.Delete delete
            && reply.result() instanceof Result.Deleted) {
          semaphoreCount.decrementAndGet();
          forget(delete.name());
        }
      }
    }
    if (waiting.isEmpty()) {
      return;
    }
    for (Effect effect : outcome.effects()) {
      if (effect instanceof Effect.Complete complete) {
        Reply done = complete.reply();
        Waiting w = waiting.remove(new WaitKey(done.sessionId(), done.requestId()));
        if (w != null) {
          ended(w.op(), done.result(), Math.max(0, logTime - w.since()));
        }
      }
    }
  }

  /** The batch ended: record how long it took and how many commands it held. */
  void batchEnded() {
    if (batchCommands > 0) {
      applyBatch.record(System.nanoTime() - batchStartNanos, TimeUnit.NANOSECONDS);
      batchSize.record(batchCommands);
      batchCommands = 0;
    }
  }

  private static boolean isWait(Operation op) {
    return op instanceof Operation.Acquire
        || op instanceof Operation.Decrement
        || op instanceof Operation.AcquireLease
        || op instanceof Operation.Semop
        || op instanceof Operation.WaitMany;
  }

  /** A request that takes permits ended with {@code result} after waiting {@code waitedNanos}. */
  private void ended(Operation op, Result result, long waitedNanos) {
    if (op instanceof Operation.Acquire a && result instanceof Result.Granted g) {
      granted(a.name(), g.amount() > 0, waitedNanos);
    } else if (op instanceof Operation.Decrement d && result instanceof Result.Granted g) {
      granted(d.name(), g.amount() > 0, waitedNanos);
    } else if (op instanceof Operation.AcquireLease l && result instanceof Result.LeaseGranted g) {
      granted(l.name(), g.permitId() != 0, waitedNanos);
    } else if (op instanceof Operation.Semop semop && result instanceof Result.SemopDone done) {
      for (SemopOp o : semop.ops()) {
        if (o.delta() < 0) {
          granted(o.name(), done.done(), waitedNanos);
        }
      }
    } else if (result instanceof Result.WaitManyReported reported) {
      for (Result.Report report : reported.reports()) {
        if (report.granted() > 0) {
          metersOf(report.name()).grants().increment();
        }
      }
    }
  }

  private void granted(Name name, boolean granted, long waitedNanos) {
    SemaphoreMeters m = metersOf(name);
    if (granted) {
      m.grants().increment();
      m.waitTime().record(waitedNanos, TimeUnit.NANOSECONDS);
    } else {
      m.timeouts().increment();
    }
  }

  /** A deleted semaphore's series go, freeing its place under the cap. */
  private void forget(Name name) {
    SemaphoreMeters m = perSemaphore.remove(text(name));
    if (m != null) {
      registry.remove(m.grants());
      registry.remove(m.timeouts());
      registry.remove(m.waitTime());
    }
  }

  // ------------------------------------------------------------------ on scrape

  /**
   * Replaces the gauges' rows with {@code statuses} (the first semaphores by name, up to the cap).
   */
  void refresh(List<Result.SemaphoreStatus> statuses) {
    List<MultiGauge.Row<?>> v = new ArrayList<>();
    List<MultiGauge.Row<?>> q = new ArrayList<>();
    List<MultiGauge.Row<?>> h = new ArrayList<>();
    for (Result.SemaphoreStatus s : statuses) {
      Tags tags = Tags.of("name", text(s.name()));
      v.add(MultiGauge.Row.of(tags, s.value()));
      q.add(MultiGauge.Row.of(tags, s.waiters()));
      h.add(MultiGauge.Row.of(tags, s.holders()));
    }
    values.register(v, true);
    queueDepths.register(q, true);
    holders.register(h, true);
  }

  int maxSemaphoreSeries() {
    return maxSemaphoreSeries;
  }

  /** The Prometheus text exposition of every meter. */
  String scrape() {
    return registry.scrape();
  }

  /** Stops listening to the JVM (its GC notifications) and closes the registry. */
  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
