package io.semafor.it.faults;

import io.semafor.ErrorCode;
import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.Semop;
import io.semafor.client.WaitMany;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One client of a fault run, as its own process in its own network namespace: for a while it takes
 * an owned permit of one of the pool semaphores, holds it, and gives it back (or both pools at once
 * with a {@code semop}, or one as a lease); increments the counter; adds a ticket and consumes
 * tickets with a WaitMany list; and reads a pool's value — appending every operation, as it saw it,
 * to its op log. Then it closes its session (so everything it still held comes back) and prints
 * {@code done}.
 *
 * <p>Args: {@code clientId addresses opLog durationMillis holdMillis pools counter seed
 * [sessionTtlMillis [tickets]]}, where {@code pools} and {@code tickets} are comma-separated. An
 * operation whose answer never came (the client gave up, or reported the outcome unknown) is
 * recorded {@code UNKNOWN}; one refused for sure {@code FAILED}.
 *
 * <p>A session can expire under it (the process frozen past its TTL by the {@code FREEZE_CLIENT}
 * fault): the server then gave back what it held at a moment the client cannot know, after the
 * session was last certainly alive and before the client heard of the expiry. That is recorded as
 * what it is, a release over exactly that window ({@link #expired}).
 */
public final class FaultWorker {
  private FaultWorker() {}

  /** How long one acquisition waits before giving up (nothing is taken then). */
  static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(5);

  /**
   * The session's TTL unless given: longer than any fault, so no session should expire during a run
   * unless its process is frozen on purpose with a shorter one.
   */
  static final Duration SESSION_TTL = Duration.ofSeconds(30);

  /**
   * When the current session was last certainly alive: the invocation of the last operation the
   * server answered on it (the server answered after that moment, so the session lived then).
   */
  private static long aliveAt;

  public static void main(String[] args) throws Exception {
    int client = Integer.parseInt(args[0]);
    String addresses = args[1];
    Path log = Path.of(args[2]);
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
    long holdNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
    List<String> pools = List.of(args[5].split(",", -1));
    String counter = args[6];
    Random random = new Random(Long.parseLong(args[7]));
    Duration ttl = args.length > 8 ? Duration.ofMillis(Long.parseLong(args[8])) : SESSION_TTL;
    List<String> tickets =
        args.length > 9 && !args[9].isEmpty() ? List.of(args[9].split(",", -1)) : List.of();
    SemaforClient c = connect(client, addresses, end, ttl);
    if (c == null) {
      System.out.println("never connected: the cluster served no one for the whole run");
      System.exit(NEVER_CONNECTED);
      return;
    }
    // the harness counts these lines: a session may expire only where the run meant it to
    c.onSessionLost(() -> System.out.println(SESSION_LOST + " at " + System.nanoTime()));
    try (OpLog.Writer out = OpLog.Writer.open(log);
        c) {
      while (System.nanoTime() < end) {
        double roll = random.nextDouble();
        NamedSemaphore pool = c.semaphore(pools.get(random.nextInt(pools.size())));
        if (roll < 0.5) {
          acquireHoldRelease(client, c, pool, holdNanos, out);
        } else if (roll < 0.6) {
          leaseRenewRelease(client, pool, holdNanos, out);
        } else if (roll < 0.7 && pools.size() > 1) {
          semopHoldRelease(client, c, pools, holdNanos, out);
        } else if (roll < 0.8) {
          increment(client, c.semaphore(counter), out);
        } else if (roll < 0.9 && !tickets.isEmpty()) {
          incrementThenWaitMany(client, c, tickets, random, out);
        } else {
          read(client, pool, out);
        }
      }
    }
    System.out.println("done");
  }

  /** The line a client prints when it learns that its session expired. */
  static final String SESSION_LOST = "SESSION LOST";

  /**
   * A lease's TTL: a few hold times, so that a lease held through a fault (its renewal or release
   * cut off) ends by itself within the run, and the holds show it.
   */
  static final Duration LEASE_TTL = Duration.ofSeconds(1);

  /** The exit status of a client that could not connect during the whole run. */
  static final int NEVER_CONNECTED = 3;

  /**
   * Connects as an application would while its cluster may be down or without a leader: each
   * attempt waits up to 10 s for a leader, and a failed attempt is tried again until the run ends
   * (null then). While a majority is down no attempt can succeed; that is unavailability, which
   * Raft accepts, not a broken promise.
   */
  private static @org.jspecify.annotations.Nullable SemaforClient connect(
      int client, String addresses, long end, Duration ttl) throws InterruptedException {
    while (System.nanoTime() < end) {
      try {
        return SemaforClient.builder()
            .addresses(addresses)
            .clientName("fault-worker-" + client)
            .sessionTtl(ttl)
            .connectTimeout(Duration.ofSeconds(10))
            .giveUpAfter(Duration.ofSeconds(60))
            .connect();
      } catch (SemaforException e) {
        if (e.code() != ErrorCode.UNAVAILABLE && e.code() != ErrorCode.NOT_LEADER) {
          throw e;
        }
        System.out.println("connect failed, trying again: " + e.getMessage());
        TimeUnit.MILLISECONDS.sleep(250);
      }
    }
    return null;
  }

  private static Op.Outcome outcomeOf(SemaforException e) {
    // UNAVAILABLE: the client gave up without an answer, so the server may have done it;
    // SESSION_EXPIRED: the server may have done it before the session ended
    return e.code() == ErrorCode.UNAVAILABLE || expired(e) ? Op.Outcome.UNKNOWN : Op.Outcome.FAILED;
  }

  private static boolean expired(SemaforException e) {
    return e.code() == ErrorCode.SESSION_EXPIRED;
  }

  /**
   * The session that held a permit of {@code pool} expired: the server gave it back at some moment
   * after {@code alive} (the session was certainly alive then) and before now. Recorded as an OK
   * release over that window, so that the permit is certainly held only until {@code alive} and the
   * value reads see it come back somewhere in the window.
   */
  private static void expired(int client, String pool, long alive, OpLog.Writer out)
      throws java.io.IOException {
    out.append(Op.release(client, pool, 1, alive, System.nanoTime(), Op.Outcome.OK));
  }

  private static void acquireHoldRelease(
      int client, SemaforClient c, NamedSemaphore pool, long holdNanos, OpLog.Writer out)
      throws InterruptedException, java.io.IOException {
    long session = c.sessionId(); // the session the permit will be owned by
    long invoked = System.nanoTime();
    Permit permit;
    try {
      permit = pool.tryAcquirePermit(1, ACQUIRE_TIMEOUT);
    } catch (SemaforException e) {
      out.append(
          Op.acquire(client, pool.name(), 1, invoked, System.nanoTime(), outcomeOf(e), -1, -1));
      if (expired(e)) {
        expired(client, pool.name(), invoked, out); // granted, maybe, then given back
      }
      return;
    }
    long returned = System.nanoTime();
    aliveAt = invoked;
    if (permit == null) {
      out.append(Op.acquire(client, pool.name(), 1, invoked, returned, Op.Outcome.FAILED, -1, -1));
      return;
    }
    out.append(
        Op.acquire(
            client,
            pool.name(),
            1,
            invoked,
            returned,
            Op.Outcome.OK,
            permit.token(),
            permit.sequence()));
    TimeUnit.NANOSECONDS.sleep(Math.max(0, returned + holdNanos - System.nanoTime()));
    release(client, c, pool, session, invoked, out);
  }

  /**
   * Gives back one owned permit of {@code pool}, taken on {@code session} by an op invoked at
   * {@code acquireInvoked}, and records how that went (a session that expired meanwhile gave it
   * back).
   */
  private static void release(
      int client,
      SemaforClient c,
      NamedSemaphore pool,
      long session,
      long acquireInvoked,
      OpLog.Writer out)
      throws java.io.IOException {
    long releaseInvoked = System.nanoTime();
    Op.Outcome outcome = Op.Outcome.OK;
    try {
      // not permit.release(): that returns quietly when the session has ended (nothing to give
      // back), and the history must know the permit was lost rather than given back
      pool.release(1);
    } catch (SemaforException e) {
      boolean sessionChanged = c.sessionId() != session;
      if (expired(e) || (e.code() == ErrorCode.INVALID_ARGUMENT && sessionChanged)) {
        // SESSION_EXPIRED if the release was pending when the expiry was learnt;
        // INVALID_ARGUMENT if it went out on the new session, which owns nothing
        // alive certainly just after the acquire was sent (the server answered it later), and
        // maybe later still if other operations were answered since
        expired(client, pool.name(), Math.max(aliveAt, acquireInvoked + 1), out);
        return;
      }
      outcome = outcomeOf(e);
    }
    if (outcome == Op.Outcome.OK) {
      aliveAt = releaseInvoked;
    }
    out.append(Op.release(client, pool.name(), 1, releaseInvoked, System.nanoTime(), outcome));
  }

  /**
   * Takes a permit of {@code pool} as a lease of {@link #LEASE_TTL}, renews it halfway through the
   * hold, and releases it. A lease outlives its session: it ends by its release or, if that never
   * arrives, by itself, {@link #LEASE_TTL} after it was last granted or renewed. So:
   *
   * <ul>
   *   <li>a lease found gone (the renewal says NOT_FOUND, the release says it was not there) ended
   *       by itself at some moment between when it was certainly still promised — the invocation of
   *       its last successful grant or renewal plus the TTL, if that is already past — and now: an
   *       OK release over that window (if it ended sooner than promised, someone else's grant
   *       overlaps the hold and the capacity check fails);
   *   <li>a release or renewal whose answer never came still leaves the lease ending once, by the
   *       release or by itself, at some moment after it was sent — or after its promise ran out, if
   *       that came first (the process frozen past the TTL before sending it): an OK release from
   *       the earlier of the two that completes {@link #NEVER}, so the model must place it but may
   *       place it anywhere after (found by a campaign: recorded from the renewal's sending, a
   *       lease that had lapsed while its client was frozen read as an over-grant);
   *   <li>a grant whose answer never came may or may not have taken a permit; if it did, the lease
   *       ends by itself: an UNKNOWN release from the same moment stands for that.
   * </ul>
   */
  private static void leaseRenewRelease(
      int client, NamedSemaphore pool, long holdNanos, OpLog.Writer out)
      throws InterruptedException, java.io.IOException {
    long ttl = LEASE_TTL.toNanos();
    long invoked = System.nanoTime();
    Lease lease;
    try {
      lease = pool.acquireLease(1, LEASE_TTL, ACQUIRE_TIMEOUT);
    } catch (SemaforException e) {
      Op.Outcome outcome = outcomeOf(e);
      out.append(Op.acquire(client, pool.name(), 1, invoked, System.nanoTime(), outcome, -1, -1));
      if (outcome == Op.Outcome.UNKNOWN) {
        out.append(Op.release(client, pool.name(), 1, invoked, NEVER, Op.Outcome.UNKNOWN));
      }
      return;
    }
    long returned = System.nanoTime();
    if (lease == null) {
      out.append(Op.acquire(client, pool.name(), 1, invoked, returned, Op.Outcome.FAILED, -1, -1));
      return;
    }
    out.append(
        Op.acquire(
            client,
            pool.name(),
            1,
            invoked,
            returned,
            Op.Outcome.OK,
            lease.token(),
            lease.sequence()));
    long promisedFrom = invoked; // the lease lasts at least ttl from here
    TimeUnit.NANOSECONDS.sleep(Math.max(0, returned + holdNanos / 2 - System.nanoTime()));
    long renewInvoked = System.nanoTime();
    try {
      lease.renew(LEASE_TTL);
      promisedFrom = renewInvoked;
    } catch (SemaforException e) {
      if (e.code() == ErrorCode.NOT_FOUND) {
        endedByItself(client, pool.name(), promisedFrom + ttl, out);
        return;
      }
      unanswered(client, pool.name(), promisedFrom + ttl, renewInvoked, e, out);
      return;
    }
    TimeUnit.NANOSECONDS.sleep(Math.max(0, returned + holdNanos - System.nanoTime()));
    long releaseInvoked = System.nanoTime();
    boolean released;
    try {
      released = lease.release();
    } catch (SemaforException e) {
      unanswered(client, pool.name(), promisedFrom + ttl, releaseInvoked, e, out);
      return;
    }
    if (released) {
      out.append(
          Op.release(client, pool.name(), 1, releaseInvoked, System.nanoTime(), Op.Outcome.OK));
    } else {
      endedByItself(client, pool.name(), promisedFrom + ttl, out);
    }
  }

  /**
   * A renewal or release of a lease, sent at {@code sent}, that got no answer ({@code e}): it may
   * have landed (the lease outlives the session, whose expiry only cut the call short), so the
   * lease ends once, after it was sent — or after its promise, if that had run out before it was
   * sent (a process frozen past the lease's TTL).
   *
   * @throws SemaforException {@code e} itself if it is a refusal rather than a missing answer
   */
  private static void unanswered(
      int client, String pool, long promisedUntil, long sent, SemaforException e, OpLog.Writer out)
      throws java.io.IOException {
    if (e.code() != ErrorCode.UNAVAILABLE && !expired(e)) {
      throw e;
    }
    out.append(Op.release(client, pool, 1, Math.min(promisedUntil, sent), NEVER, Op.Outcome.OK));
  }

  /**
   * A completion time for an op that certainly takes effect, once, at a moment no client can bound:
   * later than any real time of the run.
   */
  static final long NEVER = Long.MAX_VALUE - 1;

  /**
   * A lease found gone: it ended by itself, no sooner than {@code promisedUntil} if that has passed
   * (sooner would break its promise: recorded as ending now, so an overlapping grant shows).
   */
  private static void endedByItself(int client, String pool, long promisedUntil, OpLog.Writer out)
      throws java.io.IOException {
    long now = System.nanoTime();
    out.append(Op.release(client, pool, 1, Math.min(promisedUntil, now), now, Op.Outcome.OK));
  }

  /**
   * One permit of every pool taken at once with an owned {@code semop} (all or nothing), held, and
   * given back pool by pool. Recorded as one acquire per pool, all with the semop's invocation,
   * completion, token and sequence, then each release as its own op.
   */
  private static void semopHoldRelease(
      int client, SemaforClient c, List<String> pools, long holdNanos, OpLog.Writer out)
      throws InterruptedException, java.io.IOException {
    Semop semop = c.semop();
    for (String pool : pools) {
      semop.take(pool, 1).owned();
    }
    // the session the permits will be owned by, read before the semop: read at release time it is
    // the new session after an expiry, and a release refused there was taken for a failed one
    // (found by a campaign: a frozen semop holder's lost permits read as still held, an over-grant)
    long session = c.sessionId();
    long invoked = System.nanoTime();
    Semop.Result result;
    try {
      result = semop.execute(ACQUIRE_TIMEOUT);
    } catch (SemaforException e) {
      long failed = System.nanoTime();
      for (String pool : pools) {
        out.append(Op.acquire(client, pool, 1, invoked, failed, outcomeOf(e), -1, -1));
        if (expired(e)) {
          expired(client, pool, invoked, out);
        }
      }
      return;
    }
    long returned = System.nanoTime();
    aliveAt = invoked;
    for (String pool : pools) {
      out.append(
          result.done()
              ? Op.acquire(
                  client,
                  pool,
                  1,
                  invoked,
                  returned,
                  Op.Outcome.OK,
                  result.token(),
                  result.sequence())
              : Op.acquire(client, pool, 1, invoked, returned, Op.Outcome.FAILED, -1, -1));
    }
    if (!result.done()) {
      return;
    }
    TimeUnit.NANOSECONDS.sleep(Math.max(0, returned + holdNanos - System.nanoTime()));
    for (String pool : pools) {
      release(client, c, c.semaphore(pool), session, invoked, out);
    }
  }

  private static void increment(int client, NamedSemaphore counter, OpLog.Writer out)
      throws java.io.IOException {
    long invoked = System.nanoTime();
    Op.Outcome outcome = Op.Outcome.OK;
    try {
      counter.increment(1);
      aliveAt = invoked;
    } catch (SemaforException e) {
      outcome = outcomeOf(e);
    }
    out.append(Op.increment(client, counter.name(), 1, invoked, System.nanoTime(), outcome));
  }

  /**
   * The most a WaitMany entry asks of each ticket semaphore: more than one, so grants are partial.
   */
  static final long WAIT_MANY_AMOUNT = 2;

  /** How long a WaitMany list waits for a grant. */
  static final Duration WAIT_MANY_TIMEOUT = Duration.ofSeconds(1);

  /**
   * Adds a ticket to one of the {@code tickets} semaphores, then consumes tickets IRIS-style: a
   * WaitMany list asks every ticket semaphore for up to {@link #WAIT_MANY_AMOUNT}, waits up to
   * {@link #WAIT_MANY_TIMEOUT}, and each grant it reports is taken for good (recorded as an OK
   * take); the list is then closed, giving back what was granted but not reported. If the wait got
   * no answer, the server may have reported any entry's grant: an UNKNOWN take of up to the asked
   * amount per semaphore stands for that.
   */
  private static void incrementThenWaitMany(
      int client, SemaforClient c, List<String> tickets, Random random, OpLog.Writer out)
      throws InterruptedException, java.io.IOException {
    increment(client, c.semaphore(tickets.get(random.nextInt(tickets.size()))), out);
    java.util.Map<String, Long> reported = new java.util.LinkedHashMap<>();
    try (WaitMany list = c.waitMany()) {
      for (String t : tickets) {
        // an unreported grant is not consumed: a failed add leaves nothing taken
        list.add(t, WAIT_MANY_AMOUNT, granted -> reported.put(t, granted));
      }
      long invoked = System.nanoTime();
      try {
        list.await(WAIT_MANY_TIMEOUT);
        aliveAt = invoked;
      } catch (SemaforException e) {
        if (outcomeOf(e) == Op.Outcome.UNKNOWN) {
          long now = System.nanoTime();
          for (String t : tickets) {
            out.append(Op.take(client, t, WAIT_MANY_AMOUNT, invoked, now, Op.Outcome.UNKNOWN));
          }
        }
        throw e;
      }
      long returned = System.nanoTime();
      for (var r : reported.entrySet()) {
        if (r.getValue() > 0) {
          out.append(Op.take(client, r.getKey(), r.getValue(), invoked, returned, Op.Outcome.OK));
        }
      }
    } catch (SemaforException e) {
      // an add, the wait or the close refused or unanswered: what was granted and not reported
      // stays in the list until the session ends, and then goes back, as it would for a crash
    }
  }

  private static void read(int client, NamedSemaphore pool, OpLog.Writer out)
      throws java.io.IOException {
    long invoked = System.nanoTime();
    try {
      long value = pool.value();
      aliveAt = invoked;
      out.append(Op.read(client, pool.name(), invoked, System.nanoTime(), Op.Outcome.OK, value));
    } catch (SemaforException e) {
      // a read that failed changed nothing: recorded as FAILED whatever the code, so dropped
      out.append(Op.read(client, pool.name(), invoked, System.nanoTime(), Op.Outcome.FAILED, -1));
    }
  }
}
