package io.semafor.client.internal;

import io.semafor.client.SemaforException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One round of connecting: every address once, in a staggered race ("happy eyeballs", RFC 8305 §5).
 * The first address is tried at once; each next one as soon as every attempt running has failed, or
 * when the stagger has passed without an answer, whichever comes first. A leader named by a member
 * that does not lead is tried next. The first attempt that opens or resumes a session wins, and
 * every other one is closed.
 *
 * <p>Why race rather than try the addresses in turn: a node frozen by a pause (GC, SIGSTOP, a VM
 * migration) still accepts TCP connections, because the kernel does, but never answers the Hello,
 * so an attempt on it lasts its whole timeout (5 s by default). Tried in turn, one frozen member of
 * three cost a client its session while the two others were ready (found by the fault harness,
 * {@code docs/reliability.md}). Racing costs at most one extra connection per stagger to a server
 * slow to answer; a member that does not lead answers at once and is closed unused.
 *
 * <p>Only a leader opens or resumes a session, so two attempts of one round both winning means an
 * old and a new leader overlapped for a moment: the loser's connection is closed, and a session it
 * opened holds nothing and expires after its TTL.
 *
 * <p>Not thread-safe: one round at a time, on the thread that calls {@link #race}; the attempts run
 * on the executor.
 *
 * @param <H> what a successful attempt yields: an open connection with its session
 */
final class Dialer<H extends Dialer.Handshake> {
  /** A session opened or resumed over a connection that the dialer may have to close unused. */
  interface Handshake {
    /** Closes the connection; the round chose another. */
    void abandon();
  }

  /** One handshake with one address: connect, Hello, Welcome. */
  interface Attempt<H> {
    /**
     * Opens or resumes a session at {@code address}; bounds itself by its connect timeout.
     *
     * @throws NotLeader if the member does not lead (it may name the leader)
     * @throws IOException if the address cannot be reached or did not answer in time
     * @throws SemaforException if the server refused (bad credentials, too many sessions)
     */
    H run(InetSocketAddress address) throws IOException;
  }

  /** How a round ended. */
  sealed interface Outcome<H> permits Connected, Failed {}

  /** An attempt won: {@code handshake} is the session, over a connection to {@code address}. */
  record Connected<H>(InetSocketAddress address, H handshake) implements Outcome<H> {}

  /**
   * Every attempt failed.
   *
   * @param anyAnswered whether a member answered that it does not lead: a cluster is there, maybe
   *     electing
   * @param refusal the last refusal by a server, if any: it says more than an unreachable address
   * @param last the last failure of any kind, or null if there was no address
   */
  record Failed<H>(
      boolean anyAnswered, @Nullable SemaforException refusal, @Nullable Exception last)
      implements Outcome<H> {}

  /** What one attempt came to: a handshake or a failure. */
  private record Result<H>(
      InetSocketAddress address, @Nullable H handshake, @Nullable Exception failure) {}

  private final Executor executor;
  private final long staggerNanos;
  private final Attempt<H> attempt;
  private final Function<NotLeader, @Nullable InetSocketAddress> leaderOf;

  /**
   * @param executor runs the attempts; one thread per attempt running, so unbounded but short-lived
   * @param staggerNanos how long an attempt has to answer before the next address starts too
   * @param leaderOf the address a {@link NotLeader} names as the leader, if any
   */
  Dialer(
      Executor executor,
      long staggerNanos,
      Attempt<H> attempt,
      Function<NotLeader, @Nullable InetSocketAddress> leaderOf) {
    this.executor = executor;
    this.staggerNanos = staggerNanos;
    this.attempt = attempt;
    this.leaderOf = leaderOf;
  }

  /**
   * Races the attempt over {@code addresses}, in that order, and returns the first session or why
   * none opened. Blocks until an attempt wins or every attempt has ended; an attempt still running
   * when another wins closes its connection when it ends. If interrupted, returns a failure with
   * the interrupt flag set.
   */
  Outcome<H> race(List<InetSocketAddress> addresses) {
    ArrayDeque<InetSocketAddress> queue = new ArrayDeque<>();
    Set<String> seen = new HashSet<>();
    for (InetSocketAddress a : addresses) {
      if (seen.add(key(a))) {
        queue.add(a);
      }
    }
    Round round = new Round();
    int running = 0;
    boolean anyAnswered = false;
    SemaforException refusal = null;
    Exception last = null;
    try {
      while (running > 0 || !queue.isEmpty()) {
        Result<H> r;
        if (running == 0) {
          r = null;
        } else if (queue.isEmpty()) {
          r = round.results.take();
        } else {
          r = round.results.poll(staggerNanos, TimeUnit.NANOSECONDS);
        }
        if (r == null) {
          start(queue.remove(), round); // nothing running, or the stagger passed: the next one
          running++;
          continue;
        }
        running--;
        H handshake = r.handshake();
        if (handshake != null) {
          round.decide();
          return new Connected<>(r.address(), handshake);
        }
        Exception failure = Objects.requireNonNull(r.failure(), "a result without a handshake");
        last = failure;
        if (failure instanceof NotLeader notLeader) {
          anyAnswered = true;
          InetSocketAddress leader = leaderOf.apply(notLeader);
          if (leader != null && seen.add(key(leader))) {
            queue.addFirst(leader);
          }
        } else if (failure instanceof SemaforException refused) {
          refusal = refused;
        }
      }
      return new Failed<>(anyAnswered, refusal, last);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      round.decide();
      return new Failed<>(anyAnswered, refusal, new IOException("interrupted while connecting", e));
    }
  }

  /** The results of one round, and whether it is decided (later handshakes are abandoned). */
  private final class Round {
    final LinkedBlockingQueue<Result<H>> results = new LinkedBlockingQueue<>();
    private boolean decided;

    /** Ends the round: every handshake not taken, now or later, is abandoned. */
    synchronized void decide() {
      decided = true;
      for (Result<H> r = results.poll(); r != null; r = results.poll()) {
        H h = r.handshake();
        if (h != null) {
          h.abandon();
        }
      }
    }

    synchronized void offer(InetSocketAddress address, H handshake) {
      if (decided) {
        handshake.abandon();
      } else {
        results.add(new Result<>(address, handshake, null));
      }
    }

    void failed(InetSocketAddress address, Exception failure) {
      results.add(new Result<>(address, null, failure));
    }
  }

  private void start(InetSocketAddress address, Round round) {
    try {
      executor.execute(
          () -> {
            try {
              round.offer(address, attempt.run(address));
            } catch (IOException | RuntimeException e) {
              round.failed(address, e);
            } catch (Throwable e) { // an Error too must end the attempt, or the round waits on it
              round.failed(address, new IOException("connecting failed: " + e, e));
              throw e;
            }
          });
    } catch (RejectedExecutionException e) {
      round.failed(address, new IOException("the client is closing", e));
    }
  }

  private static String key(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }
}
