package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A machine driven the way the edge drives it: every command gets the next revision and the
 * harness's log time, and completions are routed to the client whose session they belong to. Time
 * only moves when a test says so.
 */
final class Harness {
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000 * MS;
  static final long DEFAULT_TTL = 10 * SECOND;

  final SemaphoreMachine machine;
  private long revision;
  private long now;
  private final Map<Long, TestClient> clients = new HashMap<>();
  private final List<Reply> completions = new ArrayList<>();
  private List<Effect> lastEffects = List.of();

  Harness() {
    this(Limits.DEFAULT);
  }

  Harness(Limits limits) {
    this.machine = new SemaphoreMachine(limits);
  }

  Outcome apply(Command command) {
    Outcome outcome = machine.apply(++revision, now, command);
    lastEffects = outcome.effects();
    for (Effect e : outcome.effects()) {
      if (e instanceof Effect.Complete complete) {
        completions.add(complete.reply());
        TestClient client = clients.get(complete.reply().sessionId());
        if (client != null) {
          client.receive(complete.reply());
        }
      }
    }
    return outcome;
  }

  /** Applies a command that is always answered at once, and returns the answer. */
  Result answer(Command command) {
    Reply reply = apply(command).reply();
    if (reply == null) {
      throw new AssertionError("no reply to " + command);
    }
    return reply.result();
  }

  /** Moves log time forward. */
  void advance(long nanos) {
    now += nanos;
  }

  long now() {
    return now;
  }

  long revision() {
    return revision;
  }

  TestClient connect() {
    return connect(DEFAULT_TTL);
  }

  TestClient connect(long ttl) {
    return connect(ttl, ClientInfo.NONE);
  }

  TestClient connect(long ttl, ClientInfo who) {
    Result result = answer(new Command.OpenSession(ttl, who));
    assertThat(result).isInstanceOf(Result.SessionOpened.class);
    TestClient client = new TestClient(this, ((Result.SessionOpened) result).sessionId());
    clients.put(client.sessionId, client);
    return client;
  }

  /** Every reply delivered as a completion so far, in order. */
  List<Reply> completions() {
    return completions;
  }

  List<Effect> lastEffects() {
    return lastEffects;
  }

  Result query(Query query) {
    return machine.query(query).result();
  }

  Result.SemaphoreStatus status(String name) {
    Result result = query(new Query.Get(Name.of(name)));
    assertThat(result).isInstanceOf(Result.SemaphoreStatus.class);
    return (Result.SemaphoreStatus) result;
  }

  Result.SemaphoreDetail inspect(String name) {
    Result result = query(new Query.Inspect(Name.of(name)));
    assertThat(result).isInstanceOf(Result.SemaphoreDetail.class);
    return (Result.SemaphoreDetail) result;
  }

  long value(String name) {
    return status(name).value();
  }

  boolean exists(String name) {
    return query(new Query.Get(Name.of(name))) instanceof Result.SemaphoreStatus;
  }

  Result expireSession(TestClient client) {
    return answer(new Command.ExpireSession(client.sessionId));
  }

  Result expireWaiter(TestClient client, long requestId) {
    return answer(new Command.ExpireWaiter(client.sessionId, requestId));
  }

  Result expireLease(long permitId) {
    return answer(new Command.ExpireLease(permitId));
  }
}
