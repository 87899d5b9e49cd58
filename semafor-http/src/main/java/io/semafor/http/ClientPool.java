package io.semafor.http;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link SemaforClient} per bearer token, connected to the node's own client port with that
 * token, so that everything an HTTP caller does is done by its principal's session, under its
 * permissions and audit (decision 0052). A client is made at the first request with its token
 * (connecting runs on {@code connector}, never on an event loop), shared by every request with it,
 * and closed by {@link #closeIdle} once nothing of it is in flight and it was unused for {@code
 * idle}. A token the server refuses is not kept. Thread-safe.
 */
final class ClientPool implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientPool.class);

  /** A pooled client and what is in flight through it. */
  static final class Entry {
    final CompletableFuture<SemaforClient> client;
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger waits = new AtomicInteger();
    volatile long lastUsedNanos;

    Entry(CompletableFuture<SemaforClient> client, long now) {
      this.client = client;
      this.lastUsedNanos = now;
    }
  }

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final Function<String, SemaforClient> connect;
  private final ExecutorService connector;
  private final LongSupplier nanoTime;
  private final Duration idle;
  private volatile boolean closed;

  /**
   * @param connect opens a client with a token ("": none); blocks
   * @param connector where connecting runs
   */
  ClientPool(
      Function<String, SemaforClient> connect,
      ExecutorService connector,
      LongSupplier nanoTime,
      Duration idle) {
    this.connect = connect;
    this.connector = connector;
    this.nanoTime = nanoTime;
    this.idle = idle;
  }

  /**
   * The entry of {@code token}, its in-flight count raised: call {@link #done} once the request is
   * answered. Its client future fails as connecting failed (UNAUTHENTICATED for a refused token).
   */
  @SuppressWarnings("FutureReturnValueIgnored") // failures are answered or logged by the stages
  Entry use(String token) {
    if (closed) {
      Entry gone =
          new Entry(
              CompletableFuture.failedFuture(
                  new SemaforException(ErrorCode.UNAVAILABLE, "the HTTP API is shutting down")),
              nanoTime.getAsLong());
      gone.inFlight.incrementAndGet();
      return gone;
    }
    while (true) {
      Entry e =
          entries.computeIfAbsent(
              token,
              t ->
                  new Entry(
                      CompletableFuture.supplyAsync(() -> connect.apply(t), connector),
                      nanoTime.getAsLong()));
      // a refused or failed connection is not kept: the next request tries again (attached here,
      // not in the mapping function: a connection that fails at once would be removed before it
      // was put, and kept)
      e.client.whenComplete(
          (c, failure) -> {
            if (failure != null) {
              entries.remove(token, e);
            }
          });
      e.inFlight.incrementAndGet();
      if (entries.get(token) == e || e.client.isCompletedExceptionally()) {
        e.lastUsedNanos = nanoTime.getAsLong();
        return e;
      }
      e.inFlight.decrementAndGet(); // closed as idle meanwhile: take a fresh one
    }
  }

  /** A request through {@code entry} is answered. */
  void done(Entry entry) {
    entry.lastUsedNanos = nanoTime.getAsLong();
    entry.inFlight.decrementAndGet();
  }

  /**
   * Drops {@code token}'s client if it is {@code entry}'s (its credentials were refused since it
   * connected: a revoked or expired token); closes it.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // failures are answered or logged by the stages
  void evict(String token, Entry entry) {
    if (entries.remove(token, entry)) {
      entry.client.thenAcceptAsync(SemaforClient::close, connector);
    }
  }

  /** Closes the clients idle for the pool's idle time with nothing in flight; returns how many. */
  @SuppressWarnings("FutureReturnValueIgnored") // failures are answered or logged by the stages
  int closeIdle() {
    long now = nanoTime.getAsLong();
    int n = 0;
    for (var it = entries.entrySet().iterator(); it.hasNext(); ) {
      var kv = it.next();
      Entry e = kv.getValue();
      if (e.inFlight.get() == 0
          && now - e.lastUsedNanos >= idle.toNanos()
          && entries.remove(kv.getKey(), e)) {
        n++;
        e.client.thenAcceptAsync(SemaforClient::close, connector);
      }
    }
    return n;
  }

  /** Whether {@link #close} was called: the API is shutting down. */
  boolean closed() {
    return closed;
  }

  /** Clients open now (connected or connecting). */
  int size() {
    return entries.size();
  }

  /** Closes every client (their sessions end; delivered leases stay). */
  @Override
  public void close() {
    closed = true;
    List<Entry> all = new ArrayList<>(entries.values());
    entries.clear();
    for (Entry e : all) {
      try {
        SemaforClient c = e.client.getNow(null);
        if (c != null) {
          c.close();
        }
      } catch (RuntimeException ex) {
        log.debug("pooled client not closed: {}", ex.toString());
      }
    }
  }
}
