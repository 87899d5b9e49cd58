package io.semafor.http;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.server.http.ApiException;
import io.semafor.server.http.Exchange;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Runs one request's call on its bearer token's pooled client and answers it: the failures as
 * {@link Errors} says, a token refused since its client connected evicts that client. A waiting
 * call (a long poll) counts against the token's waits while it runs, and is withdrawn when its
 * caller goes away first: its future is cancelled, which withdraws the request from the server and
 * gives back a grant that raced the withdrawal (decision 0049); a grant that arrives after the
 * caller left is given back by the answer's {@code undelivered} action. Thread-safe.
 */
final class Calls {
  /** Answers a call's result. */
  @FunctionalInterface
  interface Answer<T> {
    void answer(Exchange exchange, T result);
  }

  private final ClientPool pool;
  private final boolean authenticated;
  private final int maxWaits;

  /**
   * @param authenticated whether the server has an auth file (a request without a token is then
   *     refused at once, without a connection)
   */
  Calls(ClientPool pool, boolean authenticated, int maxWaits) {
    this.pool = pool;
    this.authenticated = authenticated;
    this.maxWaits = maxWaits;
  }

  /** Runs a call that does not wait. */
  <T> void run(
      Exchange exchange, Function<SemaforClient, CompletableFuture<T>> call, Answer<T> answer) {
    start(exchange, call, answer, false);
  }

  /** Runs a call that waits (a long poll), withdrawn if its caller goes away first. */
  <T> void waiting(
      Exchange exchange, Function<SemaforClient, CompletableFuture<T>> call, Answer<T> answer) {
    start(exchange, call, answer, true);
  }

  @SuppressWarnings("FutureReturnValueIgnored") // failures are answered or logged by the stages
  private <T> void start(
      Exchange exchange,
      Function<SemaforClient, CompletableFuture<T>> call,
      Answer<T> answer,
      boolean waits) {
    String token = token(exchange);
    ClientPool.Entry entry = pool.use(token);
    if (waits && entry.waits.incrementAndGet() > maxWaits) {
      entry.waits.decrementAndGet();
      pool.done(entry);
      throw exhausted(maxWaits);
    }
    AtomicBoolean ended = new AtomicBoolean();
    Runnable end =
        () -> {
          if (ended.compareAndSet(false, true)) {
            if (waits) {
              entry.waits.decrementAndGet();
            }
            pool.done(entry);
          }
        };
    AtomicReference<@Nullable CompletableFuture<T>> running = new AtomicReference<>();
    AtomicBoolean gone = new AtomicBoolean();
    if (waits) {
      exchange.onClose(
          () -> {
            gone.set(true);
            CompletableFuture<T> f = running.get();
            if (f != null) {
              f.cancel(true); // withdraws the wait; a grant that raced it is given back
            }
          });
    }
    entry
        .client
        .thenCompose(
            client -> {
              if (gone.get()) {
                return CompletableFuture.<T>failedFuture(
                    new SemaforException(ErrorCode.UNAVAILABLE, "the caller went away"));
              }
              CompletableFuture<T> f = call.apply(client);
              running.set(f);
              if (gone.get()) {
                f.cancel(true);
              }
              return f;
            })
        .whenComplete(
            (result, failure) -> {
              end.run();
              if (failure != null) {
                Throwable t = Errors.unwrap(failure);
                if (t instanceof SemaforException e && e.code() == ErrorCode.UNAUTHENTICATED) {
                  pool.evict(token, entry);
                }
                if (pool.closed()) {
                  // its session was closed under it: what it waited for was withdrawn, and a
                  // grant it had not received went back with the session (decision 0049)
                  t =
                      new ApiException(
                          503,
                          "UNAVAILABLE",
                          null,
                          "the HTTP API is shutting down; the request was withdrawn and holds"
                              + " nothing: send it again once the server is back");
                }
                exchange.fail(t); // to a caller that left, writes nothing
                return;
              }
              try {
                answer.answer(exchange, result);
              } catch (RuntimeException e) {
                exchange.fail(e);
              }
            });
  }

  /**
   * The request's bearer token; "" for none.
   *
   * @throws ApiException 401 without a token on a server that authenticates
   */
  String token(Exchange exchange) {
    String token = exchange.token();
    if (authenticated && token.isEmpty()) {
      throw new ApiException(
          401,
          "UNAUTHENTICATED",
          "Authorization",
          "credentials: none given; send Authorization: Bearer TOKEN (a token from `semafor auth"
              + " token`, docs/http.md)");
    }
    return token;
  }

  static ApiException exhausted(int max) {
    return new ApiException(
        429,
        "RESOURCE_EXHAUSTED",
        null,
        "waits: this principal already has "
            + max
            + " long polls and event streams open (--http-max-waits-per-principal); finish one"
            + " first");
  }
}
