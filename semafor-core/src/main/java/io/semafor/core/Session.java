package io.semafor.core;

import io.semafor.ClientInfo;
import java.util.LinkedHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One client's presence (docs/semantics.md#sessions): its TTL, the requests it has in flight, and
 * what it holds.
 *
 * <p>{@link #requests} maps a request id to its {@link Waiter} while it waits, then to its kept
 * {@link Reply} (or {@link Delivery}, if the reply hands something over) until the client
 * acknowledges it. Its iteration order is never observable: code that walks it sorts first.
 */
final class Session {
  final long id;
  final long ttl;

  /** Who the client said it is, at {@code Hello}. */
  final ClientInfo client;

  /** Who may resume it. */
  final SessionOwner owner;

  /** Log time at which the session was opened. */
  final long openedAt;

  /**
   * Log time of the last command from this session; an expiry earlier than a TTL after it is
   * refused.
   */
  long lastSeen;

  long lastRequestId;
  final LongTable<Object> requests = new LongTable<>();
  final LinkedHashMap<Semaphore, Holding> holdings = new LinkedHashMap<>();
  final LinkedHashMap<Long, WaitList> waitLists = new LinkedHashMap<>();

  /** Waiting requests plus WaitMany entries, bounded by {@code maxWaitersPerSession}. */
  int waiting;

  /** Replies not yet acknowledged, bounded by {@code maxUnackedReplies}. */
  int unacked;

  Session(long id, long ttl, ClientInfo client, SessionOwner owner, long openedAt, long lastSeen) {
    this.id = id;
    this.ttl = ttl;
    this.client = client;
    this.owner = owner;
    this.openedAt = openedAt;
    this.lastSeen = lastSeen;
  }

  @Nullable Holding findHolding(Semaphore semaphore) {
    return holdings.get(semaphore);
  }

  /** This session's holding on {@code semaphore}, created and registered with it if new. */
  Holding holding(Semaphore semaphore) {
    Holding h = holdings.get(semaphore);
    if (h == null) {
      h = new Holding(this, semaphore);
      holdings.put(semaphore, h);
      semaphore.holders().holdings.put(id, h);
    }
    return h;
  }

  /** Forgets a holding that no longer owns or awaits anything. */
  void dropIfEmpty(Holding h) {
    if (h.isEmpty()) {
      holdings.remove(h.semaphore);
      HolderTable table = h.semaphore.holders;
      if (table != null) {
        table.holdings.remove(id);
      }
      h.semaphore.compact();
    }
  }

  @Nullable WaitList waitList(long listId) {
    return waitLists.get(listId);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(id);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return this == o;
  }
}
