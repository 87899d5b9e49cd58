package io.semafor.server;

import io.semafor.ClientInfo;
import io.semafor.core.Command;
import io.semafor.core.Operation;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.Secret;
import io.semafor.core.SessionOwner;
import io.semafor.replication.Replicator;
import io.semafor.server.security.Audit;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Principal;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The console's changes — delete a semaphore, set its value, release a lease — made as a client
 * would make them: in a session of the operator's principal, opened for the one command and closed
 * after it, each command through the log (so a cluster replicates it) and checked against the
 * principal's permissions like the same request from a client. Every action is written to the audit
 * log with its outcome. Blocking (three commits); thread-safe.
 */
final class ConsoleActions {
  /** The session an action runs in lives this long if closing it fails. */
  private static final Duration SESSION_TTL = Duration.ofSeconds(30);

  private static final long COMMIT_TIMEOUT_SECONDS = 10;

  private static final SecureRandom RANDOM = new SecureRandom();

  /** What an action came to: the HTTP status, a stable code, and what to tell the operator. */
  record Outcome(int status, String code, String message) {}

  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final SemaforServer server;

  ConsoleActions(
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator, SemaforServer server) {
    this.replicator = replicator;
    this.server = server;
  }

  /**
   * Runs {@code op} for {@code who}, asked from {@code address}; {@code action} names it in the
   * audit log.
   */
  Outcome run(Principal who, String address, String action, Operation op)
      throws InterruptedException {
    Outcome outcome = attempt(who, op);
    Audit.record(
        "console " + action,
        who,
        address,
        outcome.status() == 200 ? "ok" : outcome.code() + ": " + outcome.message());
    return outcome;
  }

  private Outcome attempt(Principal who, Operation asked) throws InterruptedException {
    io.semafor.server.security.Access access = server.config().security().access();
    String denied = Authorizer.deny(access, who, asked);
    if (denied != null) {
      return new Outcome(403, "PERMISSION_DENIED", denied);
    }
    // a lease another principal took is released only with release on its name (decision 0047)
    Operation op = Authorizer.bind(access, who, asked);
    try {
      byte[] secret = new byte[16];
      RANDOM.nextBytes(secret);
      Reply opened =
          commit(
              new Command.OpenSession(
                  SESSION_TTL.toNanos(),
                  new ClientInfo("semafor-console", "", 0),
                  new SessionOwner(who.name(), Secret.digestOf(secret)),
                  Secret.random(RANDOM)));
      if (!(opened.result() instanceof Result.SessionOpened session)) {
        return failed(opened.result());
      }
      long id = session.sessionId();
      try {
        Reply done = commit(new Command.Request(id, 1, List.of(), op));
        return done.result() instanceof Result.Failure failure
            ? failed(failure)
            : new Outcome(200, "OK", describe(done.result()));
      } finally {
        try {
          commit(new Command.Request(id, 2, List.of(1L), new Operation.CloseSession()));
        } catch (ExecutionException | TimeoutException e) {
          // the session ends by itself within its TTL; the action's outcome stands
        }
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof Edge.NotLeader) {
        return new Outcome(421, "NOT_LEADER", String.valueOf(cause.getMessage()));
      }
      return new Outcome(503, "UNAVAILABLE", String.valueOf(cause.getMessage()));
    } catch (TimeoutException e) {
      return new Outcome(
          504,
          "OUTCOME_UNKNOWN",
          "not committed within " + COMMIT_TIMEOUT_SECONDS + " s; it may still be");
    }
  }

  private Reply commit(Command command)
      throws ExecutionException, TimeoutException, InterruptedException {
    CompletableFuture<Reply> answer = new CompletableFuture<>();
    try {
      replicator.submit(command, new Edge.LocalCommand(answer));
    } catch (IllegalStateException closing) {
      answer.completeExceptionally(closing);
    }
    return answer.get(COMMIT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static Outcome failed(Result result) {
    if (result instanceof Result.Failure f) {
      int status =
          switch (f.code()) {
            case NOT_FOUND -> 404;
            case PERMISSION_DENIED -> 403;
            case INVALID_ARGUMENT, OVERFLOW -> 400;
            case RESOURCE_EXHAUSTED -> 429;
            default -> 503;
          };
      return new Outcome(status, f.code().name(), f.message());
    }
    return new Outcome(503, "UNAVAILABLE", "unexpected answer " + result);
  }

  private static String describe(Result result) {
    if (result instanceof Result.Deleted) {
      return "deleted";
    } else if (result instanceof Result.ValueSet set) {
      return "set (it was " + set.previous() + ")";
    } else if (result instanceof Result.LeaseReleased released) {
      return released.released() ? "lease released" : "the lease had already ended";
    }
    return "done";
  }
}
