package io.semafor.client.internal;

import io.semafor.client.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.protocol.v1.Cancel;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Requests and reads over a {@link Link}, in the forms the public API needs: blocking (for quick
 * operations, and interruptibly for operations that wait), and asynchronous. Failures come back as
 * {@link SemaforException}s. Thread-safe.
 */
public final class Rpc {
  private final Link link;
  private final long answerTimeoutNanos;

  public Rpc(Link link, Duration answerTimeout) {
    this.link = link;
    this.answerTimeoutNanos = answerTimeout.toNanos();
  }

  public Link link() {
    return link;
  }

  /**
   * A request that does not wait on the server (create, increment, release…): blocks until
   * answered. An interrupt is remembered, not acted on: the operation is already under way.
   *
   * @throws SemaforException if the server refused it, or gave no answer (UNAVAILABLE)
   */
  public Response call(Request.Builder request) {
    Call call = link.request(request, false);
    long deadline = System.nanoTime() + answerTimeoutNanos;
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return check((Response) link.await(call, deadline));
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * A request that may wait on the server up to {@code timeoutNanos} (-1: forever). If the thread
   * is interrupted, the request is cancelled and its answer awaited (uninterruptibly, up to the
   * answer timeout): if it was granted before the cancel arrived, {@code undo} gets the answer and
   * gives the grant back; then InterruptedException is thrown, with the interrupt status clear, and
   * nothing of the request is left queued on the server.
   */
  public Response callWaiting(Request.Builder request, long timeoutNanos, Consumer<Response> undo)
      throws InterruptedException {
    Call call = link.request(request, false);
    long deadline =
        timeoutNanos < 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutNanos + answerTimeoutNanos;
    try {
      return check((Response) link.await(call, deadline));
    } catch (InterruptedException e) {
      cancel(call, undo);
      Thread.interrupted(); // an interrupt during the cancel is the one being thrown
      throw e;
    }
  }

  private void cancel(Call call, Consumer<Response> undo) {
    try {
      call(Request.newBuilder().setCancel(Cancel.newBuilder().setRequestId(call.id)));
      long deadline = System.nanoTime() + answerTimeoutNanos;
      Response answer;
      while (true) {
        try {
          answer = (Response) link.await(call, deadline);
          break;
        } catch (InterruptedException again) {
          // interrupted twice: still find out whether it was granted, or it would leak
        }
      }
      if (!answer.hasFailure()) {
        undo.accept(answer);
      }
    } catch (SemaforException ignored) {
      // the session or connection is gone; what was granted goes back with it
    }
  }

  /**
   * Blocks until the server has the acknowledgement of every answer this client read so far, so
   * that what they granted is delivered (docs/semantics.md#delivery): a keep-alive carries them at
   * once and its pong confirms. Takes one round trip.
   *
   * @throws InterruptedException if interrupted first (the acknowledgement still goes out)
   * @throws SemaforException SESSION_EXPIRED if the session ended first (undelivered grants went
   *     back with it), UNAVAILABLE if no confirmation came within the answer timeout or the client
   *     is closed
   */
  public void awaitAcknowledged() throws InterruptedException {
    awaitAcknowledged(link.sessionEpoch());
  }

  /** The count of sessions this client lost so far, to pass to {@link #awaitAcknowledged(long)}. */
  public long sessionEpoch() {
    return link.sessionEpoch();
  }

  /**
   * {@link #awaitAcknowledged()} for answers read since {@link #sessionEpoch()} was {@code epoch}:
   * fails with SESSION_EXPIRED if that session was lost meanwhile, even if a new one is up.
   *
   * @throws InterruptedException if interrupted first (the acknowledgement still goes out)
   * @throws SemaforException SESSION_EXPIRED, or UNAVAILABLE (no confirmation within the answer
   *     timeout, or the client is closed)
   */
  public void awaitAcknowledged(long epoch) throws InterruptedException {
    try {
      link.acknowledged(epoch).get(answerTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      RuntimeException failure = unwrap(e.getCause() != null ? e.getCause() : e);
      if (failure instanceof SemaforException s) {
        // a fresh exception so the caller's stack shows where it waited
        throw new SemaforException(s.code(), String.valueOf(s.getMessage()), s);
      }
      throw failure;
    } catch (TimeoutException e) {
      throw new SemaforException(
          ErrorCode.UNAVAILABLE, "no confirmation of the acknowledgements in time", e);
    }
  }

  /**
   * {@link #awaitAcknowledged()}, completing the future instead of blocking; it fails with a
   * SemaforException as that method throws one (a timeout is UNAVAILABLE).
   */
  public CompletableFuture<Void> acknowledgedAsync() {
    return acknowledgedAsync(link.sessionEpoch());
  }

  /** {@link #awaitAcknowledged(long)}, completing the future instead of blocking. */
  @SuppressWarnings("FutureReturnValueIgnored") // whenComplete passes every outcome on
  public CompletableFuture<Void> acknowledgedAsync(long epoch) {
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    link.acknowledged(epoch)
        .orTimeout(answerTimeoutNanos, TimeUnit.NANOSECONDS)
        .whenComplete(
            (ok, error) -> {
              if (error == null) {
                confirmed.complete(null);
                return;
              }
              Throwable cause =
                  error instanceof java.util.concurrent.CompletionException
                          && error.getCause() != null
                      ? error.getCause()
                      : error;
              confirmed.completeExceptionally(
                  cause instanceof TimeoutException
                      ? new SemaforException(
                          ErrorCode.UNAVAILABLE,
                          "no confirmation of the acknowledgements in time",
                          cause)
                      : cause);
            });
    return confirmed;
  }

  /** A request whose answer completes the future (on whichever thread reads it). */
  public CompletableFuture<Response> callAsync(Request.Builder request) {
    Call call = link.request(request, true);
    return call.answer.thenApply(answer -> check((Response) answer));
  }

  /** A read: blocks until answered. */
  public ReadResponse read(Read.Builder read) {
    Call call = link.read(read, false);
    long deadline = System.nanoTime() + answerTimeoutNanos;
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return check((ReadResponse) link.await(call, deadline));
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  public CompletableFuture<ReadResponse> readAsync(Read.Builder read) {
    Call call = link.read(read, true);
    return call.answer.thenApply(answer -> check((ReadResponse) answer));
  }

  private static Response check(Response response) {
    if (response.hasFailure()) {
      throw ErrorCodes.exception(response.getFailure());
    }
    return response;
  }

  private static ReadResponse check(ReadResponse response) {
    if (response.hasFailure()) {
      throw ErrorCodes.exception(response.getFailure());
    }
    return response;
  }

  /** Unwraps the SemaforException a failed future carries. */
  public static RuntimeException unwrap(Throwable failure) {
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (t instanceof SemaforException s) {
      return s;
    }
    return new SemaforException(ErrorCode.UNAVAILABLE, String.valueOf(t.getMessage()), t);
  }

  /** The wire form of a timeout: nanoseconds, -1 for forever. */
  public static long timeoutNanos(Duration timeout) {
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout: negative: " + timeout);
    }
    try {
      return timeout.toNanos();
    } catch (ArithmeticException tooLong) {
      return -1;
    }
  }
}
