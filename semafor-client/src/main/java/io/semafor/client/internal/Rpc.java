package io.semafor.client.internal;

import io.semafor.ErrorCode;
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
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Requests and reads over a {@link Link}, in the forms the public API needs: blocking (for quick
 * operations, and interruptibly for operations that wait), and asynchronous. Failures come back as
 * {@link SemaforException}s. Thread-safe.
 */
public final class Rpc {
  private final Link link;
  private final long answerTimeoutNanos;
  private final Claims claims = new Claims();

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
   * A request that may wait on the server up to {@code timeoutNanos} (-1: forever), whose answer is
   * handed to the caller (docs/semantics.md#cancelled-waits). If the thread is interrupted, the
   * request is cancelled and its answer awaited (uninterruptibly, up to the answer timeout): if it
   * was granted before the cancel arrived, {@code undo} gets the answer and gives the grant back;
   * then InterruptedException is thrown, with the interrupt status clear, and nothing of the
   * request is left queued on the server. If the client is closed meanwhile, the closing gives the
   * grant back instead ({@link #giveBackWaiting}).
   *
   * @throws SemaforException the server's refusal; UNAVAILABLE if the client was closed before the
   *     answer was handed over (a grant went back)
   */
  public Response callWaiting(Request.Builder request, long timeoutNanos, Consumer<Response> undo)
      throws InterruptedException {
    try (HeldAnswer held = callHeld(request, timeoutNanos, undo)) {
      return held.take();
    }
  }

  /**
   * {@link #callWaiting}, for a caller with more to do before the grant is its own (confirm its
   * delivery): the answer is held, not yet handed over, until {@link HeldAnswer#take}. Close the
   * result.
   */
  public HeldAnswer callHeld(Request.Builder request, long timeoutNanos, Consumer<Response> undo)
      throws InterruptedException {
    Claim claim = claims.open(undo);
    boolean held = false;
    try {
      Call call = link.request(request, false, claim);
      long deadline =
          timeoutNanos < 0 ? Deadlines.NONE : System.nanoTime() + timeoutNanos + answerTimeoutNanos;
      Response answer;
      try {
        answer = check((Response) link.await(call, deadline));
      } catch (InterruptedException e) {
        // if the withdrawal went unanswered, the call's claim stays open for its late answer
        held = !cancel(call, claim);
        Thread.interrupted(); // an interrupt during the cancel is the one being thrown
        throw e;
      }
      held = true;
      return new HeldAnswer(answer, claim, claims);
    } finally {
      if (!held) {
        claims.done(claim);
      }
    }
  }

  /**
   * Withdraws an interrupted waiting call and gives back what it was granted first. Returns false
   * if its answer could not be awaited (no answer to the withdrawal within the answer timeout): the
   * call is still pending, and a grant that answers it later is given back then, on a thread of its
   * own; until then the call keeps its claim, so a close meanwhile leaves that answer
   * unacknowledged.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the late answer's handler ends the claim itself
  private boolean cancel(Call call, Claim claim) {
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
      if (!answer.hasFailure() && claim.take()) {
        claim.undo.accept(answer);
      }
      return true;
    } catch (SemaforException e) {
      if (link.isClosed()) {
        return true; // the closing gives back what came: the claim is its
      }
      // no answer in time, yet the session may live: the call's answer may still come (or just
      // came), and a grant in it would be acknowledged with no caller to report it to (issue 31);
      // if the session was lost instead, the call failed and what it granted went back with it
      call.answer.whenComplete(
          (late, failed) -> {
            try {
              if (late instanceof Response r && !r.hasFailure() && claim.take()) {
                giveBackLater(claim, r);
              }
            } finally {
              claims.done(claim);
            }
          });
      return false;
    }
  }

  /**
   * The client is closing: from now on no waiting call starts, and every grant a waiting call read
   * but its caller has not taken is given back now (an answer not read yet will not be
   * acknowledged, so it goes back when the session ends). Call before the session is closed.
   */
  public void giveBackWaiting() {
    for (Runnable giveBack : claims.close()) {
      try {
        giveBack.run();
      } catch (SemaforException e) {
        // the session or the server is gone: unacknowledged grants go back with the session
      }
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

  /**
   * The asynchronous form of {@link #callWaiting} (docs/semantics.md#cancelled-waits), for a grant
   * reported as soon as it is read: {@link #callWaitingAsync(Request.Builder, Consumer, Function,
   * Function, BiFunction)} with nothing to confirm.
   */
  public <T> CompletableFuture<T> callWaitingAsync(
      Request.Builder request, Consumer<Response> undo, Function<Response, T> report) {
    return callWaitingAsync(
        request,
        undo,
        answer -> CompletableFuture.completedFuture(null),
        report,
        (answer, e) -> new Unreported(e, true));
  }

  /**
   * The asynchronous form of {@link #callHeld} (docs/semantics.md#cancelled-waits). Once the answer
   * is read and {@code confirm}'s future for it completes (at once, or once the grant's delivery is
   * confirmed), the grant becomes the caller's and the returned future completes with what {@code
   * report} makes of it (which may call the caller's callbacks). The future's outcome is decided
   * once ({@link GrantFuture}): a caller's {@code cancel} (or timeout, or completion) before the
   * handing starts wins, and the grant is given back with {@code undo}, the request withdrawn from
   * the server (a grant that raced the withdrawal goes back too); a {@code cancel} after it returns
   * false, and the future completes with the grant. The grant is also given back if {@code confirm}
   * failed and {@code unconfirmed} says so (it also names the failure to report). If the client is
   * closed first, the closing gives the grant back ({@link #giveBackWaiting}) and the future fails
   * with UNAVAILABLE. Give-backs run on a thread of their own: the thread completing a future may
   * be the one reading the connection, which must not wait for its own reading.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // each stage hands every outcome on to result
  public <T> CompletableFuture<T> callWaitingAsync(
      Request.Builder request,
      Consumer<Response> undo,
      Function<Response, CompletableFuture<?>> confirm,
      Function<Response, T> report,
      BiFunction<Response, SemaforException, Unreported> unconfirmed) {
    GrantFuture<T> result = new GrantFuture<>();
    Claim claim;
    try {
      claim = claims.open(undo);
    } catch (SemaforException closed) {
      result.completeExceptionally(closed);
      return result;
    }
    Call call = link.request(request, true, claim);
    result.whenComplete(
        (value, error) -> {
          if (!call.answer.isDone()) {
            // the caller decided first: cancelled, completed or timed it out. Sent from a thread
            // of its own: this may be the JDK's one delay thread (orTimeout), which a write
            // waiting on a stalled connection must not hold up
            withdrawLater(call);
          }
        });
    call.answer.whenComplete(
        (answer, error) -> {
          if (error != null) {
            claims.done(claim);
            result.completeExceptionally(unwrap(error));
            return;
          }
          Response r = (Response) answer;
          if (r.hasFailure()) {
            claims.done(claim);
            result.completeExceptionally(ErrorCodes.exception(r.getFailure()));
            return;
          }
          CompletableFuture<?> confirmed;
          try {
            confirmed = confirm.apply(r);
          } catch (RuntimeException e) {
            confirmed = CompletableFuture.failedFuture(e);
          }
          confirmed.whenComplete(
              (ignored, failure) -> hand(result, claim, r, failure, report, unconfirmed));
        });
    return result;
  }

  /**
   * What a caller's future fails with when its grant's delivery was not confirmed, and what then.
   */
  public record Unreported(SemaforException failure, boolean giveBack) {}

  /** Hands a confirmed answer to the caller's future, or gives its grant back. */
  private <T> void hand(
      GrantFuture<T> result,
      Claim claim,
      Response answer,
      @Nullable Throwable failure,
      Function<Response, T> report,
      BiFunction<Response, SemaforException, Unreported> unconfirmed) {
    try {
      if (!claim.take()) {
        // the client closed first: the closing gave the grant back
        result.completeExceptionally(closedWhileWaiting());
      } else if (failure != null) {
        RuntimeException cause = unwrap(failure);
        Unreported u =
            unconfirmed.apply(
                answer,
                cause instanceof SemaforException s
                    ? s
                    : new SemaforException(ErrorCode.UNAVAILABLE, String.valueOf(cause), cause));
        if (u.giveBack()) {
          giveBackLater(claim, answer);
        }
        result.completeExceptionally(u.failure());
      } else if (!result.startHanding()) {
        giveBackLater(claim, answer); // the caller cancelled (or completed) its future first
      } else {
        T value;
        try {
          value = report.apply(answer);
        } catch (RuntimeException e) {
          result.handingFailed(e);
          return;
        }
        result.handOver(value);
      }
    } finally {
      claims.done(claim);
    }
  }

  /**
   * What a waiting call whose client closed under it fails with: the closing gave its grant back.
   */
  static SemaforException closedWhileWaiting() {
    return new SemaforException(
        ErrorCode.UNAVAILABLE,
        "the client was closed while this call waited; what it was granted was given back");
  }

  /**
   * The caller cancelled a waiting call's future: withdraws the request from the server (the
   * cancel's own answer says nothing the call's answer does not).
   */
  private void withdraw(Call call) {
    try {
      link.request(Request.newBuilder().setCancel(Cancel.newBuilder().setRequestId(call.id)), true);
    } catch (SemaforException closed) {
      // the client is closed: the call fails, and the closing gives back what came
    }
  }

  /** {@link #withdraw} on a thread of its own. */
  private void withdrawLater(Call call) {
    Thread t = new Thread(() -> withdraw(call), "semafor-withdraw");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Gives a grant back on a thread of its own: the thread completing a future may be the one that
   * reads the connection, which would wait for its own reading.
   */
  private static void giveBackLater(Claim claim, Response answer) {
    Thread t =
        new Thread(
            () -> {
              try {
                claim.undo.accept(answer);
              } catch (SemaforException e) {
                // the session or the server is gone: an unacknowledged grant goes back with it
              }
            },
            "semafor-give-back");
    t.setDaemon(true);
    t.start();
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
