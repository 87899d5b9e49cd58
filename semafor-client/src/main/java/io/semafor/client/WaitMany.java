package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.client.internal.HeldAnswer;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.AddToWaitMany;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.RemoveFromWaitMany;
import io.semafor.protocol.v1.Report;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * IRIS WaitMany: asynchronous partial decrements on several semaphores, granted in the background
 * in arrival order, reported through callbacks when you call {@link #await} (or {@link
 * #awaitAsync}).
 *
 * <pre>{@code
 * WaitMany list = client.waitMany();
 * list.add("jobs", 1, granted -> runJob());
 * list.add("alerts", 5, granted -> handleAlerts(granted));
 * int reported = list.await(Duration.ofSeconds(10));   // 0 if nothing was granted in time
 * }</pre>
 *
 * <p>Adding to a semaphore already in the list merges with its request (docs/semantics.md#waitmany,
 * the IRIS concepts chapter); a reported entry leaves the list, so add it again for more. Grants
 * not yet reported count as not yet delivered: if the session ends first they go back. A grant is
 * reported only once the server has applied its acknowledgement (one more round trip, in a cluster
 * a commit), so a grant a callback consumed never goes back as well, even if this process froze
 * past its session's TTL with the report unread (found by the fault harness: docs/reliability.md).
 * If the session ends before that confirmation, no callback runs and the outcome is unknown: the
 * grant went back, or (acknowledged just before the end) it is lost to everyone. A deleted
 * semaphore's entry reports 0. Callbacks run on the thread calling {@link #await}. Use a list from
 * one thread at a time (IRIS: one list per job); a second concurrent await is refused.
 */
public final class WaitMany implements AutoCloseable {
  private final Rpc rpc;
  private final long listId;
  private final Map<String, LongConsumer> callbacks = new ConcurrentHashMap<>();

  WaitMany(Rpc rpc, long listId) {
    this.rpc = rpc;
    this.listId = listId;
  }

  /**
   * Adds a decrement of up to {@code amount} on {@code name} (IRIS {@code AddToWaitMany}), whose
   * grant will be reported to {@code waitCompleted}; it is tried at once. If the name is already in
   * the list, the amounts merge and the newer callback replaces the older.
   */
  public void add(String name, long amount, LongConsumer waitCompleted) {
    callbacks.put(name, waitCompleted);
    rpc.call(addRequest(name, amount));
  }

  /**
   * {@link #add(String, long, LongConsumer)} without blocking: the future completes once the entry
   * is on the server's list (granted now or pending), on a client thread (do not block in its
   * callbacks), or exceptionally with the {@link SemaforException} {@code add} would throw. {@code
   * waitCompleted} runs later, from {@link #await}, as for {@code add}. Thread-safe.
   */
  public CompletableFuture<Void> addAsync(String name, long amount, LongConsumer waitCompleted) {
    callbacks.put(name, waitCompleted);
    return rpc.callAsync(addRequest(name, amount)).thenApply(r -> null);
  }

  private Request.Builder addRequest(String name, long amount) {
    return Request.newBuilder()
        .setAddToWaitMany(
            AddToWaitMany.newBuilder().setListId(listId).setName(bytes(name)).setAmount(amount));
  }

  /**
   * Removes {@code name}'s entry (IRIS {@code RmFromWaitMany}): its pending request is cancelled
   * and a grant not yet reported goes back to the semaphore. Returns the amount given back.
   */
  public long remove(String name) {
    callbacks.remove(name);
    return rpc.call(removeRequest(name)).getWaitManyRemoved().getReturned();
  }

  /**
   * {@link #remove(String)} without blocking: the future completes with the amount given back, on a
   * client thread (do not block in its callbacks), or exceptionally with the {@link
   * SemaforException} it would throw. Thread-safe.
   */
  public CompletableFuture<Long> removeAsync(String name) {
    callbacks.remove(name);
    return rpc.callAsync(removeRequest(name)).thenApply(r -> r.getWaitManyRemoved().getReturned());
  }

  private Request.Builder removeRequest(String name) {
    return Request.newBuilder()
        .setRemoveFromWaitMany(
            RemoveFromWaitMany.newBuilder().setListId(listId).setName(bytes(name)));
  }

  /** How many semaphores are in the list. */
  public int size() {
    return callbacks.size();
  }

  /**
   * Waits up to {@code timeout} ({@link Duration#ZERO}: just polls) until at least one entry is
   * granted, then calls {@code waitCompleted(granted)} for every granted entry, round robin from
   * the entry after the one reported last, and returns how many it called; 0 if it timed out or the
   * list is empty. Blocks the calling thread while it waits; callbacks run on it.
   *
   * <p>An interrupt while it waits withdraws the wait from the server and throws
   * InterruptedException, as every waiting call of the client does. The list keeps its entries:
   * their requests stay queued and their grants are reported by the next {@code await} ({@link
   * #close} withdraws them). Grants the server reported before the withdrawal arrived have left the
   * list; they are given back (incremented) rather than reported, and their callbacks are dropped.
   *
   * <p>Before it calls a callback with a grant, it waits until the server has the grant's
   * acknowledgement (one more round trip): a grant the session lost meanwhile went back to its
   * semaphore, and is not reported.
   *
   * @throws InterruptedException if interrupted while waiting: grants the server reported before
   *     the withdrawal arrived, or before their delivery was confirmed, are given back
   * @throws RuntimeException what a callback threw, once every other callback was called (their
   *     grants are reported all the same; further exceptions are suppressed in it)
   * @throws SemaforException INVALID_ARGUMENT if another await of this list is waiting;
   *     SESSION_EXPIRED or UNAVAILABLE if grants came but their delivery could not be confirmed:
   *     the outcome is unknown (they went back with the session, or were delivered just before it
   *     ended), and no callback was called
   */
  public int await(Duration timeout) throws InterruptedException {
    long timeoutNanos = Rpc.timeoutNanos(timeout);
    long epoch = rpc.sessionEpoch(); // a report read after this session ended confirms nothing
    try (HeldAnswer held = rpc.callHeld(awaitRequest(timeoutNanos), timeoutNanos, this::giveBack)) {
      Response r = held.answer();
      if (granted(r)) {
        try {
          rpc.awaitAcknowledged(epoch);
        } catch (InterruptedException e) {
          if (held.tryTake()) {
            giveBackOnceConfirmed(r, epoch);
          } // else the client was closed meanwhile, and the closing gave the grants back
          throw e;
        } catch (SemaforException e) {
          if (!held.tryTake()) {
            throw closed(r);
          }
          throw unconfirmed(r, e);
        }
      }
      if (!held.tryTake()) {
        throw closed(r);
      }
      return deliver(r);
    }
  }

  /** The client was closed before the report was handed over: the closing gave the grants back. */
  private SemaforException closed(Response r) {
    for (Report report : r.getWaitManyReported().getReportsList()) {
      callbacks.remove(report.getName().toString(StandardCharsets.UTF_8));
    }
    return new SemaforException(
        ErrorCode.UNAVAILABLE,
        "the client was closed while this await waited; its grants were given back");
  }

  /**
   * After an interrupt while the delivery was being confirmed: waits for the confirmation without
   * heeding interrupts (the answer timeout at most), and gives the grants back only if it came.
   * Unconfirmed, they went back with the session or were delivered: giving them back then could
   * return them twice. The interrupt stays set.
   */
  private void giveBackOnceConfirmed(Response r, long epoch) {
    boolean confirmed = false;
    while (true) {
      try {
        rpc.awaitAcknowledged(epoch);
        confirmed = true;
        break;
      } catch (InterruptedException again) {
        // keep waiting: the confirmation decides what to do with the grants
      } catch (SemaforException e) {
        break;
      }
    }
    Thread.currentThread().interrupt();
    if (confirmed) {
      giveBack(r);
    } else {
      unconfirmed(r, new SemaforException(ErrorCode.UNAVAILABLE, "interrupted"));
    }
  }

  /** Whether a report grants anything: then its delivery is confirmed before it is reported. */
  private static boolean granted(Response r) {
    for (Report report : r.getWaitManyReported().getReportsList()) {
      if (report.getGranted() > 0) {
        return true;
      }
    }
    return false;
  }

  /** The failure of a report whose grants' delivery could not be confirmed; drops its callbacks. */
  private SemaforException unconfirmed(Response r, SemaforException e) {
    StringBuilder grants = new StringBuilder();
    for (Report report : r.getWaitManyReported().getReportsList()) {
      String name = report.getName().toString(StandardCharsets.UTF_8);
      callbacks.remove(name);
      if (report.getGranted() > 0) {
        grants.append(grants.length() == 0 ? "" : ", ").append(name).append(' ');
        grants.append(report.getGranted());
      }
    }
    return new SemaforException(
        e.code(),
        "WaitMany grants ("
            + grants
            + ") came but their delivery was not confirmed, so none was reported: outcome"
            + " unknown, they went back with the session or were delivered just before it ended: "
            + e.getMessage(),
        e);
  }

  /** Gives back the grants of a report that raced with an interrupt: they are consumed amounts. */
  private void giveBack(Response raced) {
    for (Report report : raced.getWaitManyReported().getReportsList()) {
      callbacks.remove(report.getName().toString(StandardCharsets.UTF_8));
      if (report.getGranted() > 0) {
        try {
          rpc.call(
              Request.newBuilder()
                  .setIncrement(
                      Increment.newBuilder()
                          .setName(report.getName())
                          .setAmount(report.getGranted())));
        } catch (SemaforException e) {
          // deleted meanwhile (NOT_FOUND): there is nothing to give back to; the others still are
        }
      }
    }
  }

  /**
   * {@link #await}, calling the callbacks on the thread that completes the future (a client
   * thread), once the delivery of the grants is confirmed. Never blocks. The future fails as {@link
   * #await} throws. Cancelling the future withdraws the await from the server (the list keeps its
   * entries, as after an interrupt), and grants reported before the withdrawal arrived, or whose
   * delivery was still being confirmed, are given back (incremented) and their callbacks dropped;
   * if the client is closed first, the closing gives them back and the future fails with
   * UNAVAILABLE (docs/semantics.md#cancelled-waits). A {@code cancel} that comes once the callbacks
   * are being called returns false, and the future completes with their count: a cancel that
   * returns true called no callback. The same holds for {@code orTimeout} and the caller's own
   * {@code complete}.
   */
  public CompletableFuture<Integer> awaitAsync(Duration timeout) {
    long epoch = rpc.sessionEpoch();
    return rpc.callWaitingAsync(
        awaitRequest(Rpc.timeoutNanos(timeout)),
        this::giveBack,
        r -> granted(r) ? rpc.acknowledgedAsync(epoch) : CompletableFuture.completedFuture(null),
        this::deliver,
        (r, e) -> new Rpc.Unreported(unconfirmed(r, e), false));
  }

  private Request.Builder awaitRequest(long timeoutNanos) {
    return Request.newBuilder()
        .setWaitMany(
            io.semafor.protocol.v1.WaitMany.newBuilder()
                .setListId(listId)
                .setTimeoutNs(timeoutNanos));
  }

  /**
   * Calls the callback of every report. One that throws does not keep the others from theirs (their
   * grants would be reported to nobody and lost): the first exception is thrown once every callback
   * was called, the others added to it as suppressed.
   */
  private int deliver(Response r) {
    int called = 0;
    RuntimeException thrown = null;
    for (Report report : r.getWaitManyReported().getReportsList()) {
      LongConsumer callback = callbacks.remove(report.getName().toString(StandardCharsets.UTF_8));
      if (callback != null) {
        try {
          callback.accept(report.getGranted());
        } catch (RuntimeException e) {
          if (thrown == null) {
            thrown = e;
          } else {
            thrown.addSuppressed(e);
          }
        }
      }
      called++;
    }
    if (thrown != null) {
      throw thrown;
    }
    return called;
  }

  /** Removes every entry; grants not yet reported go back. */
  @Override
  public void close() {
    for (String name : callbacks.keySet().toArray(new String[0])) {
      remove(name);
    }
  }

  private static ByteString bytes(String name) {
    return ByteString.copyFrom(name, StandardCharsets.UTF_8);
  }
}
