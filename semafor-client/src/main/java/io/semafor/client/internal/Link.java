package io.semafor.client.internal;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.client.internal.session.ClientSession;
import io.semafor.client.internal.session.SessionEffect;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview
 *
 * A Link drives one ClientSession (the session protocol as a pure state machine, in
 * internal.session): it gives the machine every input — a caller's request, a frame read, a
 * connection made or broken, the time — under one lock, and runs the effects the machine asks for
 * (write a frame, dial, hang up, complete a call). It decides nothing about the protocol.
 *
 * Threads. A caller writes its request itself, under the lock (one write, no hand-off). A caller
 * waiting for its answer reads the socket itself when no one else is (LinkReading), so a thread
 * alone on a client reads its own answer with no hand-off, as with a plain blocking socket. The
 * reader thread reads when no caller is: for asynchronous calls, confirmations, and an idle
 * connection (pongs). The conductor thread ticks the machine at its deadlines (acknowledgements
 * after 1 ms, keep-alives, silence, redials) and dials on the dial pool. What completes a call's
 * future runs after the lock is released.
 */

/** The session and its connection, shared by all threads of one client. Thread-safe. */
public final class Link implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Link.class);

  /** The conductor's longest sleep: how often it looks for a reader to nudge. */
  static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /** How often a reading caller past its deadline or interrupted is nudged (a keep-alive). */
  static final long NUDGE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /**
   * How long connecting to one address (TCP, then TLS) may take before the next is tried: a frozen
   * server still accepts TCP connections but never completes a TLS handshake.
   */
  static final Duration DIAL_DEADLINE = Duration.ofSeconds(2);

  final LinkConfig config;
  final ReentrantLock lock = new ReentrantLock();

  /** Signalled after the effects of every input while open() or close(Duration) waits. */
  final java.util.concurrent.locks.Condition changed = lock.newCondition();

  /** The session machine. Guarded by {@link #lock}. */
  final ClientSession machine;

  /** Calls waiting for their answers, by request id / read id. Guarded by {@link #lock}. */
  final Map<Long, Call> requests = new HashMap<>();

  final Map<Long, Call> reads = new HashMap<>();

  /** Waiting for the server's confirmation of acknowledgements, by token. Guarded by lock. */
  final Map<Long, CompletableFuture<Void>> confirmations =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** What completes futures, wakes threads and runs listeners: run once the lock is released. */
  final ThreadLocal<List<Runnable>> after = ThreadLocal.withInitial(ArrayList::new);

  final Map<String, InetSocketAddress> addresses = new HashMap<>();
  final CopyOnWriteArrayList<Runnable> sessionLostListeners = new CopyOnWriteArrayList<>();
  final LinkReading reading = new LinkReading(this);
  final LinkEffects effects = new LinkEffects(this);
  final Thread conductor;

  /** The connection (set under the lock) and its number in the machine's count. */
  volatile @Nullable Wire wire;

  volatile long wireConn;

  /**
   * The machine's number of connection {@code w}, or -1 if it is no longer the connection: read
   * under the lock, with which both change, so that no frame of one connection is handed to the
   * machine as another's.
   */
  long connOf(Wire w) {
    lock.lock();
    try {
      return wire == w ? wireConn : -1;
    } finally {
      lock.unlock();
    }
  }

  volatile long sessionId;
  volatile long sessionTtlNanos;

  /** How many sessions this link has lost: see {@link #acknowledged(long)}. */
  final java.util.concurrent.atomic.AtomicLong sessionsLost =
      new java.util.concurrent.atomic.AtomicLong();

  volatile long lastFrame = System.nanoTime();
  volatile boolean closed;

  /** Whether the connection has its session: until then the reader thread reads the Welcome. */
  volatile boolean attached;

  /** {@link #close(Duration)} began: the close's answer is read by the reader thread. */
  volatile boolean ending;

  /** {@link #acksDueAt} when no acknowledgement waits. */
  static final long NO_ACK = Long.MIN_VALUE;

  /** When a keep-alive must carry the acknowledgements waiting; {@link #NO_ACK} if none. */
  volatile long acksDueAt = NO_ACK;

  /** Whether the {@link AckTimer} has this link in its set. */
  volatile boolean ackTimerWatching;

  long lastNudge;

  // what open() waits for, and why a first connection failed. Guarded by lock
  boolean opened;
  @Nullable SemaforException refusal;
  @Nullable Exception lastFailure;
  boolean anyConnected;
  int dialsFailed;
  boolean finished;

  /** Runs connection attempts, one thread each; a thread ends 10 s after its last attempt. */
  final ExecutorService dialing =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          10,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          r -> {
            Thread t = new Thread(r, "semafor-client-dial");
            t.setDaemon(true);
            return t;
          });

  private Link(LinkConfig config) {
    this.config = config;
    for (InetSocketAddress a : config.addresses()) {
      addresses.put(LinkConfig.text(a), a);
    }
    this.machine = new ClientSession(config.sessionConfig());
    this.sessionTtlNanos = config.sessionTtl().toNanos();
    this.conductor = new Thread(new LinkConductor(this), "semafor-client-io");
    conductor.setDaemon(true);
  }

  /** What this link was opened with (for the connections of a client's own, such as watches). */
  public LinkConfig config() {
    return config;
  }

  /**
   * Connects to the first reachable address and opens a session, within the config's connect
   * timeout. Once any address accepted a connection, a cluster is there (electing, restarting), so
   * the link keeps trying until the timeout; if every address refused in turn, it fails at once.
   *
   * @throws SemaforException UNAVAILABLE if no address can be reached, NOT_LEADER if members
   *     answered but no leader was found in time, or the server's refusal
   */
  public static Link open(LinkConfig config) {
    if (config.addresses().isEmpty()) {
      throw new SemaforException(ErrorCode.UNAVAILABLE, "no address given");
    }
    Link link = new Link(config);
    link.conductor.start();
    link.reading.start();
    long deadline = System.nanoTime() + config.connectTimeout().toNanos();
    link.lock.lock();
    try {
      link.machine.start(System.nanoTime());
      link.runEffects();
    } finally {
      link.unlock();
    }
    SemaforException failure = link.effects.awaitOpened(deadline);
    if (failure != null) {
      link.stop();
      throw failure;
    }
    return link;
  }

  /** When a frame last came from a server ({@link System#nanoTime()}). */
  public long lastFrameNanos() {
    return lastFrame;
  }

  public long sessionId() {
    return sessionId;
  }

  public long sessionTtlNanos() {
    return sessionTtlNanos;
  }

  /** Runs {@code listener} whenever the session is lost and a new one is opened. */
  public void onSessionLost(Runnable listener) {
    sessionLostListeners.add(listener);
  }

  // ------------------------------------------------------------------ calls

  /** Sends a request under the next id; its answer completes the returned call. */
  public Call request(Request.Builder request, boolean async) {
    return request(request, async, null);
  }

  /**
   * {@link #request(Request.Builder, boolean)} for a waiting call whose answer {@code claim} gives
   * to its caller or to the client closing (then it is left unacknowledged: {@link Claim}).
   */
  Call request(Request.Builder request, boolean async, @Nullable Claim claim) {
    Call call;
    lock.lock();
    try {
      long id = machine.submit(request.build(), System.nanoTime(), false, OptionalLong.empty());
      call = new Call(id, false, async, claim);
      requests.put(id, call);
      reading.started(call);
      runEffects();
    } finally {
      unlock();
    }
    return call;
  }

  /** Sends a read; its answer completes the returned call. */
  public Call read(Read.Builder read, boolean async) {
    Call call;
    lock.lock();
    try {
      long id = machine.read(read.build(), System.nanoTime());
      call = new Call(id, true, async, null);
      reads.put(id, call);
      reading.started(call);
      runEffects();
    } finally {
      unlock();
    }
    return call;
  }

  /**
   * Blocks until the call is answered, reading the connection itself when no one else is.
   *
   * @param deadline {@link System#nanoTime()} after which to give up with UNAVAILABLE (the outcome
   *     unknown); {@link Long#MAX_VALUE} waits as long as the session lives
   * @throws InterruptedException if interrupted first (the call stays pending)
   */
  public Object await(Call call, long deadline) throws InterruptedException {
    return reading.await(call, deadline);
  }

  // ------------------------------------------------------------------ acknowledging

  /**
   * Completes once the server has applied the acknowledgement of every answer read before this
   * call: a keep-alive carrying them goes out at once, and its pong completes the future. Fails
   * with SESSION_EXPIRED if the session is lost first, UNAVAILABLE if the client is closed. Does
   * not block.
   */
  public CompletableFuture<Void> acknowledged() {
    return acknowledged(sessionsLost.get());
  }

  /**
   * {@link #acknowledged()} for answers read while {@link #sessionEpoch()} was {@code epoch}: fails
   * with SESSION_EXPIRED at once if that session was lost since, although a new one may be up (its
   * pong would confirm nothing about the old session's grants). Does not block.
   */
  public CompletableFuture<Void> acknowledged(long epoch) {
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    lock.lock();
    try {
      if (sessionsLost.get() != epoch) {
        confirmed.completeExceptionally(
            new SemaforException(
                ErrorCode.SESSION_EXPIRED,
                "the session that read the answer ended before its acknowledgement was confirmed"));
      } else if (closed || finished) {
        confirmed.completeExceptionally(
            new SemaforException(ErrorCode.UNAVAILABLE, "the client is closed"));
      } else {
        confirmations.put(machine.confirmAcknowledgements(System.nanoTime()), confirmed);
        runEffects();
      }
    } finally {
      unlock();
    }
    reading.wake();
    return confirmed;
  }

  /** The count of sessions lost so far; see {@link #acknowledged(long)}. Never blocks. */
  public long sessionEpoch() {
    return sessionsLost.get();
  }

  /**
   * Whether the server's answer is awaited by no caller (a Welcome, confirmations, the close): the
   * reader thread reads for it.
   */
  boolean awaitingForNoCaller() {
    return ending || !attached || !confirmations.isEmpty();
  }

  // ------------------------------------------------------------------ effects

  /** Runs the machine's effects until it has none left. Lock held. */
  void runEffects() {
    for (int round = 0; round < 10_000; round++) {
      List<SessionEffect> taken = machine.take();
      if (taken.isEmpty()) {
        break;
      }
      for (SessionEffect e : taken) {
        effects.apply(e);
      }
    }
    // acknowledgements are due 1 ms after an answer: the process's AckTimer looks then (waking
    // the conductor for every answer would cost a wake-up each); every other deadline is far
    // enough off for the conductor's slice
    if (machine.acknowledgementsDue()) {
      acksDueAt = machine.acknowledgementsDueAt();
      if (!ackTimerWatching) {
        ackTimerWatching = true;
        AckTimer.watch(this);
      }
    } else {
      acksDueAt = NO_ACK;
    }
    if (lock.hasWaiters(changed)) {
      changed.signalAll(); // open() and close(Duration) wait for what the effects changed
    }
  }

  /** Releases the lock, then runs what the effects left to do outside it. */
  void unlock() {
    lock.unlock();
    if (lock.isHeldByCurrentThread()) {
      return; // re-entered: the outermost unlock runs them
    }
    List<Runnable> todo = after.get();
    if (todo.isEmpty()) {
      return;
    }
    List<Runnable> run = new ArrayList<>(todo);
    todo.clear();
    for (Runnable r : run) {
      try {
        r.run();
      } catch (RuntimeException e) {
        log.warn("a completion failed", e);
      }
    }
  }

  // ------------------------------------------------------------------ the conductor

  /** For the AckTimer: when acknowledgements are due; {@link #NO_ACK} if none or closed. */
  long acksDueAt() {
    return closed ? NO_ACK : acksDueAt;
  }

  /** For the AckTimer: they are due; the conductor ticks now. Never blocks. */
  void acksDueNow() {
    LockSupport.unpark(conductor);
  }

  /** The AckTimer dropped this link: registers again if acknowledgements came due meanwhile. */
  void ackTimerLeft() {
    ackTimerWatching = false;
    if (acksDueAt() != NO_ACK) {
      ackTimerWatching = true;
      AckTimer.watch(this);
    }
  }

  // ------------------------------------------------------------------ closing

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Ends the session ({@code close_session}: everything it owns goes back now) and stops: waits up
   * to {@code answerTimeout} for the server's answer, fails what is pending, closes the connection
   * and stops the threads. Idempotent.
   */
  public void close(Duration answerTimeout) {
    lock.lock();
    try {
      if (closed || finished) {
        return;
      }
      ending = true;
      machine.close(System.nanoTime());
      runEffects();
    } finally {
      unlock();
    }
    reading.wake();
    long deadline = System.nanoTime() + answerTimeout.toNanos();
    lock.lock();
    try {
      while (!finished && System.nanoTime() - deadline < 0) {
        changed.awaitNanos(deadline - System.nanoTime());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop now: the session is left to its TTL
    } finally {
      lock.unlock();
    }
    stop();
  }

  /** Stops without ending the session (it expires after its TTL). */
  @Override
  public void close() {
    stop();
  }

  private void stop() {
    List<Call> pending;
    Wire w;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      w = wire;
      wire = null;
      pending = new ArrayList<>(requests.values());
      pending.addAll(reads.values());
      requests.clear();
      reads.clear();
      SemaforException e = new SemaforException(ErrorCode.UNAVAILABLE, "the client is closed");
      for (CompletableFuture<Void> f : confirmations.values()) {
        after.get().add(() -> f.completeExceptionally(e));
      }
      confirmations.clear();
      for (Call c : pending) {
        after.get().add(() -> reading.fail(c, e));
      }
    } finally {
      unlock();
    }
    if (w != null) {
      w.close();
    }
    LockSupport.unpark(conductor);
    reading.stop();
    try {
      conductor.join(TimeUnit.SECONDS.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    dialing.shutdownNow();
  }

  /** Drops the connection without ending the session, as a network failure would (for tests). */
  public void dropConnection() {
    Wire w = wire;
    if (w != null) {
      effects.broken(w, new IOException("dropped on purpose"));
    }
  }
}
