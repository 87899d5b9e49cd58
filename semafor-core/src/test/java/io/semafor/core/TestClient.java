package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.SemaphoreOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One session as a client library would drive it: request ids in order, and every reply
 * acknowledged on the next request (unless a test turns that off to leave grants in transit).
 */
final class TestClient {
  final Harness harness;
  final long sessionId;
  private long lastRequestId;
  private final List<Long> toAck = new ArrayList<>();
  private final Map<Long, Result> received = new HashMap<>();
  boolean acknowledging = true;

  TestClient(Harness harness, long sessionId) {
    this.harness = harness;
    this.sessionId = sessionId;
  }

  /** Sends an operation and returns its request id; it may be waiting afterwards. */
  long send(Operation op) {
    return sendAs(++lastRequestId, op);
  }

  /** Sends an operation under a given request id (a retry, or a deliberately odd id). */
  long sendAs(long requestId, Operation op) {
    List<Long> acks = List.copyOf(toAck);
    toAck.clear();
    Outcome outcome = harness.apply(new Command.Request(sessionId, requestId, acks, op));
    Reply reply = outcome.reply();
    if (reply != null) {
      receive(reply);
    }
    return requestId;
  }

  /** Sends an operation that must be answered at once, and returns the answer. */
  Result call(Operation op) {
    long id = send(op);
    Result result = received.get(id);
    if (result == null) {
      throw new AssertionError("no immediate reply to " + op);
    }
    return result;
  }

  void receive(Reply reply) {
    received.put(reply.requestId(), reply.result());
    if (acknowledging) {
      toAck.add(reply.requestId());
    }
  }

  /** Sends pending acknowledgements with no request, as a keep-alive would. */
  void acknowledge() {
    harness.apply(new Command.Acknowledge(sessionId, List.copyOf(toAck)));
    toAck.clear();
  }

  @Nullable Result resultOf(long requestId) {
    return received.get(requestId);
  }

  boolean waiting(long requestId) {
    return !received.containsKey(requestId);
  }

  long lastRequestId() {
    return lastRequestId;
  }

  // Operations, named as in docs/semantics.md#operations. Timeouts are nanoseconds; FOREVER waits.

  Result create(String name, long initial) {
    return call(new Operation.Create(Name.of(name), initial, SemaphoreOptions.DEFAULT));
  }

  Result create(String name, long initial, SemaphoreOptions options) {
    return call(new Operation.Create(Name.of(name), initial, options));
  }

  Result delete(String name) {
    return call(new Operation.Delete(Name.of(name)));
  }

  Result set(String name, long value) {
    return call(new Operation.SetValue(Name.of(name), value));
  }

  Result increment(String name, long amount) {
    return call(new Operation.Increment(Name.of(name), amount));
  }

  long decrement(String name, long amount, long timeout) {
    return send(new Operation.Decrement(Name.of(name), amount, timeout, false));
  }

  long decrementOwned(String name, long amount, long timeout) {
    return send(new Operation.Decrement(Name.of(name), amount, timeout, true));
  }

  long acquire(String name, long amount, long timeout) {
    return send(new Operation.Acquire(Name.of(name), amount, timeout, false));
  }

  long acquireOwned(String name, long amount, long timeout) {
    return send(new Operation.Acquire(Name.of(name), amount, timeout, true));
  }

  long acquireLease(String name, long amount, long leaseTtl, long timeout) {
    return send(new Operation.AcquireLease(Name.of(name), amount, leaseTtl, timeout));
  }

  long awaitZero(String name, long timeout) {
    return send(new Operation.AwaitZero(Name.of(name), timeout));
  }

  long semop(long timeout, SemopOp... ops) {
    return send(new Operation.Semop(List.of(ops), timeout));
  }

  Result release(String name, long amount) {
    return call(new Operation.Release(Name.of(name), amount));
  }

  Result releaseSlot(String name, long slot) {
    return call(new Operation.ReleaseSlot(Name.of(name), slot));
  }

  Result renew(long permitId, long ttl) {
    return call(new Operation.RenewLease(permitId, ttl));
  }

  Result releaseLease(long permitId) {
    return call(new Operation.ReleaseLease(permitId));
  }

  Result addToWaitMany(String name, long amount) {
    return call(new Operation.AddToWaitMany(0, Name.of(name), amount));
  }

  Result removeFromWaitMany(String name) {
    return call(new Operation.RemoveFromWaitMany(0, Name.of(name)));
  }

  long waitMany(long timeout) {
    return send(new Operation.WaitMany(0, timeout));
  }

  Result cancel(long requestId) {
    return call(new Operation.Cancel(requestId));
  }

  Result close() {
    return call(new Operation.CloseSession());
  }

  /** The result of a request that must have completed. */
  Result result(long requestId) {
    Result result = received.get(requestId);
    if (result == null) {
      throw new AssertionError("request " + requestId + " has not completed");
    }
    return result;
  }

  /** The grant of a completed {@code decrement} or {@code acquire}. */
  Result.Granted granted(long requestId) {
    Result result = result(requestId);
    assertThat(result).isInstanceOf(Result.Granted.class);
    return (Result.Granted) result;
  }

  long amount(long requestId) {
    return granted(requestId).amount();
  }
}
