package io.semafor.it.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.Semop;
import io.semafor.client.WaitMany;
import io.semafor.conformance.CaseRun;
import io.semafor.conformance.CaseRun.Started;
import io.semafor.conformance.Op;
import io.semafor.conformance.Outcome;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * One actor of a case, played by the Java client: each kit operation mapped onto the client's
 * asynchronous API (conformance/README.md, "Operations"), so that an operation can be started and
 * awaited later, and cancelled through its future as a caller would.
 */
final class JavaActor implements CaseRun.Actor {

  private final SemaforClient client;
  private final LongFunction<String> actorOfSession;
  private final List<Permit> permits = new CopyOnWriteArrayList<>();
  private final Map<String, WaitMany> lists = new ConcurrentHashMap<>();
  private final Map<String, List<Map<String, Object>>> reports = new ConcurrentHashMap<>();

  /**
   * @param actorOfSession names the actor whose current session has an id (for inspect), or
   *     "session:ID" for one no actor has now
   */
  JavaActor(SemaforClient client, LongFunction<String> actorOfSession) {
    this.client = client;
    this.actorOfSession = actorOfSession;
  }

  SemaforClient client() {
    return client;
  }

  /** Starts {@code op} with resolved {@code args}; {@code handles} finds a handle's operation. */
  @Override
  public Started start(Op op, JsonNode args, Function<String, Started> handles) {
    return switch (op) {
      case CREATE -> {
        SemaphoreOptions options = SemaphoreOptions.DEFAULT;
        if (args.has("capacity")) {
          options = options.capacity(args.get("capacity").asLong());
        }
        if (args.has("max_per_session")) {
          options = options.maxPerSession(args.get("max_per_session").asInt());
        }
        if (args.has("policy")) {
          options =
              options.policy(
                  args.get("policy").asText().equals("BARGING") ? Policy.BARGING : Policy.FIFO);
        }
        yield started(
            sem(args).createAsync(args.get("initial").asLong(), options),
            created -> fields("created", created));
      }
      case DELETE -> started(sem(args).deleteAsync(), none -> fields());
      case GET -> started(sem(args).infoAsync(), info -> summary(info));
      case INSPECT -> started(sem(args).inspectAsync(), info -> detail(info));
      case SET ->
          started(
              sem(args).setAsync(args.get("value").asLong()),
              previous -> fields("previous", previous));
      case INCREMENT ->
          started(
              sem(args).incrementAsync(args.get("amount").asLong()),
              value -> fields("value", value));
      case DECREMENT ->
          started(
              sem(args).decrementAsync(args.get("amount").asLong(), timeout(args)),
              amount -> fields("amount", amount));
      case ACQUIRE, TRY_ACQUIRE -> acquire(args, op == Op.ACQUIRE ? timeout(args) : Duration.ZERO);
      case RELEASE -> started(sem(args).releaseAsync(args.get("amount").asLong()), v -> fields());
      case RELEASE_SLOT -> releaseSlot(args);
      case LEASE ->
          started(
              sem(args)
                  .acquireLeaseAsync(
                      args.get("amount").asLong(),
                      Duration.ofMillis(args.get("ttl_ms").asLong()),
                      timeout(args)),
              lease -> leaseResult(lease));
      case RENEW ->
          started(
              lease(args).renewAsync(Duration.ofMillis(args.get("ttl_ms").asLong())),
              left -> fields());
      case RELEASE_LEASE ->
          started(lease(args).releaseAsync(), released -> fields("released", released));
      case AWAIT_ZERO ->
          started(sem(args).awaitZeroAsync(timeout(args)), reached -> fields("reached", reached));
      case SEMOP -> semop(args);
      case WAIT_MANY_ADD -> {
        String list = args.get("list").asText();
        String name = args.get("name").asText();
        List<Map<String, Object>> reported =
            reports.computeIfAbsent(list, l -> new CopyOnWriteArrayList<>());
        yield started(
            list(list)
                .addAsync(
                    name,
                    args.get("amount").asLong(),
                    granted -> reported.add(fields("name", name, "amount", granted))),
            v -> fields());
      }
      case WAIT_MANY_REMOVE ->
          started(
              list(args.get("list").asText()).removeAsync(args.get("name").asText()),
              returned -> fields("returned", returned));
      case WAIT_MANY -> {
        String list = args.get("list").asText();
        List<Map<String, Object>> reported =
            reports.computeIfAbsent(list, l -> new CopyOnWriteArrayList<>());
        yield started(
            list(list).awaitAsync(timeout(args)),
            count -> {
              List<Map<String, Object>> these = new ArrayList<>(reported);
              reported.removeAll(these);
              return fields("reports", these);
            });
      }
      case CANCEL -> {
        boolean cancelled = handles.apply(args.get("handle").asText()).cancel().getAsBoolean();
        yield started(CompletableFuture.completedFuture(cancelled), c -> fields());
      }
      case CLOSE -> started(CompletableFuture.runAsync(client::close), v -> fields());
    };
  }

  private Started acquire(JsonNode args, Duration timeout) {
    long amount = args.get("amount").asLong();
    if (args.has("owned") && args.get("owned").asBoolean()) {
      return started(
          sem(args).acquirePermitAsync(amount, timeout),
          permit -> {
            Optional<?> p = (Optional<?>) permit;
            if (p.isEmpty()) {
              return fields("granted", false);
            }
            Permit held = (Permit) p.get();
            permits.add(held);
            return fields("granted", true, "slots", held.slots(), "token", held.token());
          });
    }
    return started(sem(args).acquireAsync(amount, timeout), granted -> fields("granted", granted));
  }

  /**
   * The Java client frees a slot by releasing the {@link Permit} that holds it (one {@code
   * release_slot} per slot); so the kit's {@code release_slot} is the release of the one-slot
   * permit that holds it.
   */
  private Started releaseSlot(JsonNode args) {
    String name = args.get("name").asText();
    long slot = args.get("slot").asLong();
    for (Permit p : permits) {
      if (!p.isReleased() && p.semaphore().name().equals(name) && p.slots().equals(List.of(slot))) {
        permits.remove(p);
        return started(p.releaseAsync(), v -> fields());
      }
    }
    throw new IllegalStateException(
        "the Java runner releases a slot through the one-slot permit holding it; this actor has no"
            + " such permit for slot "
            + slot
            + " of "
            + name);
  }

  private Started semop(JsonNode args) {
    Semop semop = client.semop();
    for (JsonNode op : args.get("ops")) {
      String name = op.get("name").asText();
      long delta = op.get("delta").asLong();
      if (delta < 0) {
        semop.take(name, -delta);
      } else if (delta > 0) {
        semop.add(name, delta);
      } else {
        semop.waitForZero(name);
      }
      if (op.has("no_wait") && op.get("no_wait").asBoolean()) {
        semop.noWait();
      }
      if (op.has("owned") && op.get("owned").asBoolean()) {
        semop.owned();
      }
    }
    return started(
        semop.executeAsync(timeout(args)),
        r -> {
          return r.done() ? fields("done", true, "token", r.token()) : fields("done", false);
        });
  }

  private static Map<String, Object> leaseResult(Object lease) {
    Optional<?> l = (Optional<?>) lease;
    if (l.isEmpty()) {
      return fields("granted", false);
    }
    Lease granted = (Lease) l.get();
    return fields(
        "granted",
        true,
        "permit_id",
        granted.permitId(),
        "slots",
        granted.slots(),
        "token",
        granted.token());
  }

  private static Map<String, Object> summary(SemaphoreInfo info) {
    return fields(
        "value",
        info.value(),
        "waiters",
        (long) info.waiters(),
        "holders",
        (long) info.holders(),
        "leases",
        (long) info.leaseCount(),
        "owned",
        info.owned(),
        "leased",
        info.leased(),
        "undelivered",
        info.undelivered());
  }

  private Map<String, Object> detail(SemaphoreInfo info) {
    List<Object> queue = new ArrayList<>();
    for (SemaphoreInfo.Waiter w : info.queue()) {
      queue.add(fields("actor", actorOfSession.apply(w.sessionId()), "amount", w.amount()));
    }
    List<Object> holders = new ArrayList<>();
    for (SemaphoreInfo.Holder h : info.holderList()) {
      holders.add(
          fields(
              "actor",
              actorOfSession.apply(h.sessionId()),
              "owned",
              h.owned(),
              "slots",
              h.slots()));
    }
    List<Object> leases = new ArrayList<>();
    for (SemaphoreInfo.LeaseInfo l : info.leases()) {
      leases.add(
          fields(
              "permit_id",
              l.permitId(),
              "amount",
              l.amount(),
              "slots",
              l.slots(),
              "delivered",
              l.sessionId() == 0));
    }
    return fields("value", info.value(), "queue", queue, "holders", holders, "leases", leases);
  }

  private NamedSemaphore sem(JsonNode args) {
    return client.semaphore(args.get("name").asText());
  }

  private Lease lease(JsonNode args) {
    long id = args.get("permit_id").asLong();
    return args.has("name") ? client.lease(args.get("name").asText(), id) : client.lease(id);
  }

  private WaitMany list(String label) {
    return lists.computeIfAbsent(label, l -> client.waitMany());
  }

  /** timeout_ms: -1 waits as long as it takes, 0 not at all. */
  private static Duration timeout(JsonNode args) {
    long ms = args.get("timeout_ms").asLong();
    return ms == -1 ? ChronoUnit.FOREVER.getDuration() : Duration.ofMillis(ms);
  }

  /**
   * The operation {@code future} is, in the kit's terms: its result's fields, the error code it
   * failed with, or cancelled; cancelled through the client's own future, as a caller would.
   */
  private static <T> Started started(
      CompletableFuture<T> future, Function<? super T, Map<String, Object>> result) {
    return new Started(
        future.handle(
            (value, thrown) ->
                thrown == null ? new Outcome.Result(result.apply(value)) : failure(thrown)),
        () -> future.cancel(true));
  }

  /**
   * How a client call that threw ended: cancelled, or refused with a code.
   *
   * @throws AssertionError if it failed with something other than an error code
   */
  private static Outcome failure(Throwable thrown) {
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

  /** An ordered map of alternating keys and values; ints become longs, lists of them too. */
  static Map<String, Object> fields(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], normal(keysAndValues[i + 1]));
    }
    return map;
  }

  private static Object normal(Object value) {
    if (value instanceof Integer i) {
      return i.longValue();
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>();
      for (Object o : list) {
        copy.add(normal(o));
      }
      return copy;
    }
    return value;
  }
}
