package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.AcquireLease;
import io.semafor.protocol.v1.AwaitZero;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Decrement;
import io.semafor.protocol.v1.Delete;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Release;
import io.semafor.protocol.v1.ReleaseSlot;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.SetValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The wire requests of one semaphore's operations (docs/protocol.md §4), each a new builder the
 * client's {@code Rpc} sends: what {@link NamedSemaphore} and {@link Permit} ask of the server.
 * Timeouts are the wire's nanoseconds, -1 for forever ({@code Rpc.timeoutNanos}). Immutable and
 * thread-safe.
 */
final class SemaphoreRequests {
  private final ByteString name;

  SemaphoreRequests(String name) {
    this.name = ByteString.copyFrom(name, StandardCharsets.UTF_8);
  }

  Request.Builder create(long initial, SemaphoreOptions options) {
    return Request.newBuilder()
        .setCreate(
            Create.newBuilder()
                .setName(name)
                .setInitial(initial)
                .setCapacity(options.capacity())
                .setPolicy(
                    options.policy() == Policy.BARGING
                        ? io.semafor.protocol.v1.Policy.BARGING
                        : io.semafor.protocol.v1.Policy.FIFO)
                .setMaxPerSession(options.maxPerSession()));
  }

  Request.Builder delete() {
    return Request.newBuilder().setDelete(Delete.newBuilder().setName(name));
  }

  /** The read of the semaphore's status. */
  Read.Builder get() {
    return Read.newBuilder().setGet(Get.newBuilder().setName(name));
  }

  Request.Builder set(long value) {
    return Request.newBuilder().setSetValue(SetValue.newBuilder().setName(name).setValue(value));
  }

  Request.Builder increment(long amount) {
    return Request.newBuilder()
        .setIncrement(Increment.newBuilder().setName(name).setAmount(amount));
  }

  Request.Builder decrement(long amount, long timeoutNanos) {
    return Request.newBuilder()
        .setDecrement(
            Decrement.newBuilder().setName(name).setAmount(amount).setTimeoutNs(timeoutNanos));
  }

  /** All or nothing; {@code owned}: the session's, given back when it ends. */
  Request.Builder acquire(long amount, long timeoutNanos, boolean owned) {
    return Request.newBuilder()
        .setAcquire(
            Acquire.newBuilder()
                .setName(name)
                .setAmount(amount)
                .setTimeoutNs(timeoutNanos)
                .setOwned(owned));
  }

  /** Gives back {@code amount} of what the session owns. */
  Request.Builder release(long amount) {
    return Request.newBuilder().setRelease(Release.newBuilder().setName(name).setAmount(amount));
  }

  /** Gives back the owned permit that holds {@code slot}. */
  Request.Builder releaseSlot(long slot) {
    return Request.newBuilder()
        .setReleaseSlot(ReleaseSlot.newBuilder().setName(name).setSlot(slot));
  }

  Request.Builder lease(long amount, Duration leaseTtl, long timeoutNanos) {
    return Request.newBuilder()
        .setAcquireLease(
            AcquireLease.newBuilder()
                .setName(name)
                .setAmount(amount)
                .setLeaseTtlNs(leaseTtl.toNanos())
                .setTimeoutNs(timeoutNanos));
  }

  Request.Builder awaitZero(long timeoutNanos) {
    return Request.newBuilder()
        .setAwaitZero(AwaitZero.newBuilder().setName(name).setTimeoutNs(timeoutNanos));
  }

  /** The name as the wire carries it, UTF-8. */
  ByteString name() {
    return name;
  }
}
