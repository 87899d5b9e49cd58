package io.semafor.client.internal;

import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A request or read waiting for its answer, and the future the answer completes (the session
 * machine sends it again after a reconnect). A thread blocked on it records itself so the thread
 * that reads the answer can wake it.
 */
public final class Call {
  final long id;
  final boolean read;
  final boolean async;
  final long sentAt;
  final CompletableFuture<Object> answer = new CompletableFuture<>();

  /** Who owns the answer of a waiting call ({@link Claim}); null for any other call. */
  final @Nullable Claim claim;

  volatile @Nullable Thread waiter;

  Call(long id, boolean read, boolean async, @Nullable Claim claim) {
    this.id = id;
    this.read = read;
    this.async = async;
    this.claim = claim;
    this.sentAt = System.nanoTime();
  }

  /** The request id (or read id). */
  public long id() {
    return id;
  }

  /** Completed with a {@code Response} (or {@code ReadResponse}), or with a SemaforException. */
  public CompletableFuture<Object> answer() {
    return answer;
  }
}
