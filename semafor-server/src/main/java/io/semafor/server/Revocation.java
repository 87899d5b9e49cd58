package io.semafor.server;

import io.netty.channel.Channel;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.WaitingRequest;
import io.semafor.replication.Replicator;
import io.semafor.server.security.Access;
import io.semafor.server.security.Authorizer;
import io.semafor.server.security.Permission;
import io.semafor.server.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * What taking a right away reaches besides the next request (decision 0047, docs/security.md
 * #revocation): on a reload, and when a connection's token expires, every running watch and every
 * waiting request is checked again. A connection whose token no longer admits it is closed with
 * {@code Fatal UNAUTHENTICATED} and the waiting requests of its session are refused; a watch whose
 * principal lost {@code read} ends with a {@code FAILED} event PERMISSION_DENIED; a waiting request
 * its principal may no longer make is refused PERMISSION_DENIED. Refusals go through the machine
 * ({@link Command.RefuseWaiter}) at their place in the apply order, so a permit is either granted
 * before the refusal or never: none is lost between the two. Stateless.
 */
final class Revocation {
  private Revocation() {}

  /** How long a reload waits for its sweep to be made before it answers. */
  static final Duration SWEEP_WAIT = Duration.ofSeconds(5);

  /** What a sweep ended: watches, and waiting requests refused. */
  record Ended(int watches, int waiters) {
    static final Ended NONE = new Ended(0, 0);
  }

  /**
   * A check of every watch running on this node and every waiting request against {@code access},
   * made on the applying thread (it travels as a read, so it sees the state in the apply order).
   * The waiting requests of {@code closedSessions}, whose connections were closed for a token
   * revoked or expired, are refused UNAUTHENTICATED with {@code closedReason} whatever the rules.
   * {@code done} is completed with what it ended; with nothing on a node that does not lead (no
   * watch runs there, and the leader's own sweep refuses the waiters).
   */
  record Sweep(
      Access access, Set<Long> closedSessions, String closedReason, CompletableFuture<Ended> done)
      implements ReadOrigin {
    @Override
    public void refused(String leaderHint) {
      done.complete(Ended.NONE); // the leader's sweep is the one that counts
    }

    @Override
    public void answered(
        io.semafor.core.Query query,
        io.semafor.core.Reply reply,
        long logTime,
        ReadOrigin.Answers to) {
      to.sweep(this);
    }
  }

  /** Asks for {@code sweep} to be made in the apply order. Any thread. */
  static void sweep(
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator, Sweep sweep) {
    try {
      replicator.read(new Query.Barrier(), sweep);
    } catch (RuntimeException closing) {
      sweep.done().complete(Ended.NONE); // shutting down: nothing is waiting any more
    }
  }

  /**
   * After the auth file was reloaded as {@code access}: closes the connections whose token it no
   * longer admits, then sweeps and waits for the sweep (at most {@link #SWEEP_WAIT}). Returns what
   * was done, for the reload's answer.
   */
  static String reloaded(
      Iterable<Channel> connections,
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      Access access)
      throws InterruptedException {
    Instant now = Instant.now();
    Set<Long> closedSessions = new HashSet<>();
    int closed = 0;
    String reason = "token: revoked or expired";
    for (Channel channel : connections) {
      Connection connection = channel.pipeline().get(Connection.class);
      if (connection != null && !connection.stillAdmitted(access, now)) {
        long session = connection.sessionId();
        if (session != 0) {
          closedSessions.add(session);
        }
        connection.fatal(ErrorCode.UNAUTHENTICATED, reason);
        closed++;
      }
    }
    Sweep sweep = new Sweep(access, Set.copyOf(closedSessions), reason, new CompletableFuture<>());
    sweep(replicator, sweep);
    StringBuilder said = new StringBuilder();
    if (closed > 0) {
      said.append("; ").append(closed).append(" connections closed");
    }
    try {
      Ended ended = sweep.done().get(SWEEP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (ended.watches() > 0) {
        said.append("; ").append(ended.watches()).append(" watches ended");
      }
      if (ended.waiters() > 0) {
        said.append("; ").append(ended.waiters()).append(" waiting requests refused");
      }
    } catch (TimeoutException | ExecutionException e) {
      said.append("; watches and waiting requests are still being checked");
    }
    return said.toString();
  }

  /**
   * The refusals {@code sweep} makes of {@code waiting}: UNAUTHENTICATED for the closed sessions',
   * PERMISSION_DENIED for a request its principal may no longer make, in the order given.
   */
  static List<Command.RefuseWaiter> refusals(Sweep sweep, List<WaitingRequest> waiting) {
    List<Command.RefuseWaiter> out = new ArrayList<>();
    for (WaitingRequest w : waiting) {
      if (sweep.closedSessions().contains(w.sessionId())) {
        out.add(
            new Command.RefuseWaiter(
                w.sessionId(), w.requestId(), ErrorCode.UNAUTHENTICATED, sweep.closedReason()));
        continue;
      }
      String denied = denied(sweep.access(), w);
      if (denied != null) {
        out.add(
            new Command.RefuseWaiter(
                w.sessionId(),
                w.requestId(),
                ErrorCode.PERMISSION_DENIED,
                denied + " (the rules changed while the request waited)"));
      }
    }
    return out;
  }

  /** Why {@code w}'s principal may not make it under {@code access} any more; null if it may. */
  static @Nullable String denied(Access access, WaitingRequest w) {
    if (!access.enforced()) {
      return null;
    }
    Principal who =
        w.principal().isEmpty() ? Principal.ANONYMOUS : new Principal(w.principal(), "session");
    String denied = first(access, who, Permission.ACQUIRE, w.takes());
    if (denied == null) {
      denied = first(access, who, Permission.RELEASE, w.gives());
    }
    if (denied == null) {
      denied = first(access, who, Permission.READ, w.zeroes());
    }
    return denied;
  }

  private static @Nullable String first(
      Access access, Principal who, Permission permission, List<Name> names) {
    for (Name name : names) {
      String denied = Authorizer.deny(access, who, permission, name);
      if (denied != null) {
        return denied;
      }
    }
    return null;
  }
}
