package io.semafor.client.internal;

import com.google.protobuf.ByteString;
import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Overview
 *
 * A Link is one session over one TCP connection at a time, shared by every thread of a client.
 *
 * Writing: a request gets the next id and is written under one lock, so ids go out in order; it
 * carries the ids of answers received since the last write (acknowledgements).
 *
 * Acknowledging: an answer read is acknowledged by the next request, or, if none goes out within
 * about a millisecond, by a keep-alive the io thread sends when the AckTimer asks
 * (docs/semantics.md#delivery: until then a grant is in transit, and a lease would die with the
 * session). A keep-alive's pong says the server has its acknowledgements; {@link #acknowledged}
 * waits for that.
 *
 * Reading (leader/follower): a thread waiting for its answer reads the socket itself when no one
 * else is reading, dispatching whatever arrives, until its own answer comes; so a thread alone on
 * a client reads its own answer with no hand-off, as with a plain blocking socket. A thread that
 * finds someone reading parks; the reader completes its future and unparks it, and when the
 * reader's own answer arrives it passes the reading on to a parked thread.
 *
 * Reads block in the kernel with no timeout: a timed read on a JDK socket costs a failed read, a
 * poll and a read where an untimed one costs one read (measured 20% of echo throughput here, see
 * docs/decisions/0011-client-blocking-path.md). So a reader can only be woken by a frame: when a
 * reading thread's deadline passes or it is interrupted, the io thread sends a keep-alive and the
 * server's pong wakes it.
 *
 * The reader thread reads when no user thread is: for asynchronous calls (nobody is blocked on
 * those), for pongs, and when the connection has been idle (to notice a dead server).
 *
 * The io thread sends keep-alives, nudges readers as above, notices a silent server, and
 * reconnects: it resumes the session on any reachable address, sends again the acknowledgements
 * not yet confirmed and then every unanswered request under its id, in id order, before anything
 * new; the server applies each once. If the session ended (the server says so with a Fatal
 * SESSION_EXPIRED on the connection, or refuses the resume), every pending call fails with
 * SESSION_EXPIRED, the session-lost listeners run, and a new session is opened.
 */

/** The session and its connection, shared by all threads of one client. Thread-safe. */
public final class Link implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Link.class);
  private static final long WATCH_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long IDLE_READ_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long NUDGE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final LinkConfig config;
  private final long keepAliveNanos;
  private final Object writeLock = new Object();
  private final ReentrantLock reading = new ReentrantLock();
  private final ConcurrentHashMap<Long, Call> requests = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, Call> reads = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Call> parked = new ConcurrentLinkedQueue<>();
  private final AtomicInteger asyncPending = new AtomicInteger();
  private final AtomicLong nextReadId = new AtomicLong();
  private final CopyOnWriteArrayList<Runnable> sessionLostListeners = new CopyOnWriteArrayList<>();
  private final Thread ioThread;
  private final Thread readerThread;

  /** The user thread reading now (null if none, or the reader thread), and when it gives up. */
  private volatile @Nullable Thread userReader;

  private volatile long userReaderDeadline;
  private volatile long lastNudge;

  private volatile @Nullable Wire wire;
  private volatile long sessionId;

  /**
   * How many sessions this link has lost: an answer read under one count belongs to a session that
   * ended if the count moved on ({@link #acknowledged(long)}). Written under {@code writeLock}.
   */
  private volatile long sessionEpoch;

  private volatile long sessionTtlNanos;

  /**
   * The resume secret the Welcome that opened the session carried; shown again to resume it. Never
   * logged.
   */
  private volatile ByteString sessionSecret = ByteString.EMPTY;

  private volatile boolean closed;

  /** The session is being closed by this client ({@link #ending}). */
  private volatile boolean ending;

  private volatile long lastWrite = System.nanoTime();
  private volatile long lastFrame = System.nanoTime();

  /** The id of the last keep-alive sent (guarded by writeLock). */
  private long keepAliveIds;

  /** Keep-alives whose pong has not come back: sent again on resume. */
  private final ConcurrentLinkedQueue<KeptAlive> unconfirmedAcks = new ConcurrentLinkedQueue<>();

  /** Waiting for the pong of the next keep-alive: see {@link #acknowledged}. */
  private final ConcurrentLinkedQueue<CompletableFuture<Void>> ackWaiters =
      new ConcurrentLinkedQueue<>();

  /** Whether the AckTimer has this link in its set (see {@link #watchAcks}). */
  private volatile boolean ackTimerWatching;

  /** When the last answer was read (for the AckTimer, which keeps an active link in its set). */
  private volatile long lastAckReadAt = System.nanoTime();

  /** The io thread is to send a keep-alive with the acknowledgements now. */
  private volatile boolean acksDue;

  /** The server said the session ended (a Fatal SESSION_EXPIRED): the io thread reports it. */
  private volatile long expiredSessionId;

  /** A server that stops answering is left, and its address avoided for a while. */
  private final Silence silence = new Silence();

  /** When the current connection was adopted (nanoTime); 0 before the first. */
  private volatile long adoptedAt;

  /**
   * How long to wait before reconnecting after a connection that broke within {@link
   * #QUICK_FAILURE} of being made: 0 after one that lived longer. Without it, a server that closes
   * the connection on a request the client sends again on every reconnect (a server bug, a request
   * it cannot handle) would be hammered by a reconnect loop (measured: 1,500 a second).
   */
  private long quickFailureBackoff;

  private static final long QUICK_FAILURE = TimeUnit.SECONDS.toNanos(1);

  /** The id of an answer read, and when it was read (for the AckTimer). */
  private record Ack(long id, long readAt) {}

  /** {@link #acknowledge}, made once: a claimed answer is acknowledged inside its claim's lock. */
  private final LongConsumer acknowledge = this::acknowledge;

  /** {@link #oldestAckReadAt} when no acknowledgement waits. */
  static final long NO_ACK = Long.MIN_VALUE;

  /** Guarded by {@link #writeLock}. */
  private long nextRequestId;

  private int addressIndex;

  /** Where a follower said the leader is: tried first in the next round of connecting. */
  private volatile @Nullable InetSocketAddress preferred;

  /**
   * How long a connection attempt has to be answered before the next address is tried as well
   * ({@link Dialer}): RFC 8305's recommended connection attempt delay. A server that answers a
   * Hello in less (any healthy one: measured well under 10 ms on loopback with TLS) costs no extra
   * connection.
   */
  static final long DIAL_STAGGER = TimeUnit.MILLISECONDS.toNanos(250);

  /** Runs the connection attempts of a round ({@link Dialer}); a thread per attempt running. */
  private final ExecutorService dialing =
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
    this.keepAliveNanos = Math.max(config.sessionTtl().toNanos() / 3, 1);
    this.ioThread = new Thread(this::runIo, "semafor-client-io");
    ioThread.setDaemon(true);
    this.readerThread = new Thread(this::runReader, "semafor-client-reader");
    readerThread.setDaemon(true);
  }

  /** What this link was opened with (for the connections of a client's own, such as watches). */
  public LinkConfig config() {
    return config;
  }

  /**
   * Connects to the first reachable address and opens a session.
   *
   * @throws SemaforException UNAVAILABLE if no address can be reached, or the server's refusal
   */
  public static Link open(LinkConfig config) {
    Link link = new Link(config);
    long deadline = System.nanoTime() + config.connectTimeout().toNanos();
    // Once any member has answered, a cluster is there, electing or restarting: every address
    // may refuse for a moment (one node down, another starting, the last closing its clients on
    // losing the lead), so keep trying until the deadline. If none ever answered, fail at once.
    boolean anyAnswered = false;
    while (true) {
      Dialer.Outcome<Opened> outcome = link.dial(0);
      if (outcome instanceof Dialer.Connected<Opened> connected) {
        Opened opened = connected.handshake();
        try {
          link.take(opened, 0);
          link.adopt(opened.wire(), false);
        } catch (IOException e) {
          opened.abandon();
          link.dialing.shutdownNow();
          throw new SemaforException(
              ErrorCode.UNAVAILABLE, "connection lost at once: " + e.getMessage(), e);
        }
        link.ioThread.start();
        link.readerThread.start();
        return link;
      }
      Dialer.Failed<Opened> failed = (Dialer.Failed<Opened>) outcome;
      anyAnswered |= failed.anyAnswered();
      // a refusal (bad credentials, a TTL out of bounds, a full quota) will not change by itself;
      // an interrupted caller wants out
      if (!anyAnswered
          || failed.refusal() != null
          || Thread.currentThread().isInterrupted()
          || System.nanoTime() - deadline >= 0) {
        link.dialing.shutdownNow();
        throw whyNot(config, failed);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // an election takes a moment
    }
  }

  /** The exception that says why a first connection failed: a refusal, a leader missing, none. */
  private static SemaforException whyNot(LinkConfig config, Dialer.Failed<Opened> failed) {
    SemaforException refusal = failed.refusal();
    if (refusal != null) {
      return refusal;
    }
    Exception last = failed.last();
    if (last == null) {
      return new SemaforException(ErrorCode.UNAVAILABLE, "no address given");
    }
    if (last instanceof NotLeader) { // a member answered, but no leader was found in time
      return new SemaforException(ErrorCode.NOT_LEADER, String.valueOf(last.getMessage()), last);
    }
    return new SemaforException(
        ErrorCode.UNAVAILABLE,
        "cannot reach " + config.addresses() + ": " + last.getMessage(),
        last);
  }

  /**
   * One round of connecting (see {@link Dialer}): a leader a member named first, then every
   * address, starting one further along each round so that clients spread out.
   */
  private Dialer.Outcome<Opened> dial(long resume) {
    long now = System.nanoTime();
    InetSocketAddress leader = preferred;
    preferred = null;
    List<InetSocketAddress> all = config.addresses();
    int first = Math.floorMod(addressIndex++, all.size());
    List<InetSocketAddress> rotation = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      rotation.add(all.get((first + i) % all.size()));
    }
    List<InetSocketAddress> order = silence.order(leader, rotation, now);
    ClientFrame resumeHello = hello(resume);
    ClientFrame newHello = resume == 0 ? resumeHello : hello(0);
    Dialer<Opened> dialer =
        new Dialer<>(
            dialing,
            DIAL_STAGGER,
            address -> handshake(address, resume, resumeHello, newHello),
            notLeader -> {
              InetSocketAddress named = notLeader.leaderAddress();
              return named == null || silence.avoided(named, System.nanoTime()) ? null : named;
            });
    return dialer.race(order);
  }

  /**
   * Makes the session {@code opened} carries this link's: reports a session lost if the resume of
   * {@code resume} found it expired. Called by the thread that dials, before adopting the wire.
   */
  private void take(Opened opened, long resume) {
    if (opened.resumeExpired()) {
      sessionLost(resume);
    }
    Welcome welcome = opened.welcome();
    sessionId = welcome.getSessionId();
    sessionTtlNanos = welcome.getSessionTtlNs();
    if (!welcome.getResumed()) {
      sessionSecret = welcome.getSessionSecret();
    }
  }

  /**
   * A session opened or resumed over {@code wire} by {@code welcome}; {@code resumeExpired} if the
   * session asked for had expired, so that this is a new one.
   */
  record Opened(Wire wire, Welcome welcome, boolean resumeExpired) implements Dialer.Handshake {
    @Override
    public void abandon() {
      wire.close();
    }
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

  /** Runs {@code listener} (on the io thread) whenever the session is lost and a new one opened. */
  public void onSessionLost(Runnable listener) {
    sessionLostListeners.add(listener);
  }

  // ------------------------------------------------------------------ sending

  /** Sends a request under the next id; its answer completes the returned call. */
  public Call request(Request.Builder request, boolean async) {
    return request(request, async, null);
  }

  /**
   * {@link #request(Request.Builder, boolean)} for a waiting call whose answer {@code claim} gives
   * to its caller or to the client closing (then it may be left unacknowledged: {@link Claim}).
   */
  Call request(Request.Builder request, boolean async, @Nullable Claim claim) {
    Call call;
    synchronized (writeLock) {
      long id = ++nextRequestId;
      request.setId(id);
      for (Ack ack = acks.poll(); ack != null; ack = acks.poll()) {
        request.addAcks(ack.id());
      }
      byte[] frame = Frames.encode(ClientFrame.newBuilder().setRequest(request).build());
      call = new Call(id, frame, false, async, claim);
      if (async) {
        asyncPending.incrementAndGet();
      }
      requests.put(id, call);
      writeLocked(frame);
    }
    failIfClosed();
    if (async) {
      LockSupport.unpark(readerThread);
    }
    return call;
  }

  /** Sends a read; its answer completes the returned call. */
  public Call read(Read.Builder read, boolean async) {
    long id = nextReadId.incrementAndGet();
    byte[] frame = Frames.encode(ClientFrame.newBuilder().setRead(read.setId(id)).build());
    Call call = new Call(id, frame, true, async, null);
    if (async) {
      asyncPending.incrementAndGet();
    }
    reads.put(id, call);
    synchronized (writeLock) {
      writeLocked(frame);
    }
    failIfClosed();
    if (async) {
      LockSupport.unpark(readerThread);
    }
    return call;
  }

  // ------------------------------------------------------------------ acknowledging

  /**
   * Completes once the server has the acknowledgement of every answer read before this call: the io
   * thread sends a keep-alive carrying them at once, and its pong completes the future (on the
   * thread that reads it). Fails with SESSION_EXPIRED if the session is lost first, UNAVAILABLE if
   * the client is closed. Does not block.
   */
  public CompletableFuture<Void> acknowledged() {
    return acknowledged(sessionEpoch);
  }

  /**
   * {@link #acknowledged()} for answers read while {@link #sessionEpoch()} was {@code epoch}: fails
   * with SESSION_EXPIRED at once if that session was lost since, although a new one may be up (its
   * pong would confirm nothing about the old session's grants). Does not block.
   */
  public CompletableFuture<Void> acknowledged(long epoch) {
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    ackWaiters.add(confirmed);
    // after adding: a loss from now on fails the waiter itself; one before it moved the count
    if (sessionEpoch != epoch) {
      confirmed.completeExceptionally(
          new SemaforException(
              ErrorCode.SESSION_EXPIRED,
              "the session that read the answer ended before its acknowledgement was confirmed"));
      return confirmed; // left in the queue: the next pong or failure drains it, a no-op then
    }
    if (closed) {
      failAckWaiters(new SemaforException(ErrorCode.UNAVAILABLE, "the client is closed"));
    }
    sendAcksNow();
    return confirmed;
  }

  /** The count of sessions lost so far; see {@link #acknowledged(long)}. Never blocks. */
  public long sessionEpoch() {
    return sessionEpoch;
  }

  /** Queues the acknowledgement of the answer with this id, read just now. */
  private void acknowledge(long id) {
    long readAt = lastFrame;
    acks.add(new Ack(id, readAt));
    lastAckReadAt = readAt;
    watchAcks();
  }

  /** Registers with the AckTimer unless already registered: a volatile read on the hot path. */
  private void watchAcks() {
    if (!ackTimerWatching) {
      ackTimerWatching = true;
      AckTimer.watch(this);
    }
  }

  /**
   * For the AckTimer: when the oldest acknowledgement still waiting was read; NO_ACK if none, or if
   * there is no connection to send it on (then {@link #adopt} registers again).
   */
  long oldestAckReadAt() {
    Ack oldest = acks.peek();
    return oldest == null || closed || wire == null ? NO_ACK : oldest.readAt();
  }

  /** For the AckTimer: when the last answer was read. */
  long lastAckReadAt() {
    return lastAckReadAt;
  }

  /** The AckTimer dropped this link: registers again if an answer was read meanwhile. */
  void ackTimerLeft() {
    ackTimerWatching = false;
    if (oldestAckReadAt() != NO_ACK) {
      watchAcks();
    }
  }

  /** Asks the io thread to send a keep-alive with the acknowledgements now; does not block. */
  void sendAcksNow() {
    acksDue = true;
    LockSupport.unpark(ioThread);
  }

  private void writeLocked(byte[] frame) {
    Wire w = wire;
    if (w == null) {
      return; // sent on reconnect
    }
    try {
      w.write(frame);
      lastWrite = System.nanoTime();
    } catch (IOException e) {
      broken(w, e);
    }
  }

  // ------------------------------------------------------------------ waiting

  /**
   * Blocks until the call is answered, reading the connection itself when no one else is.
   *
   * @param deadline {@link System#nanoTime()} after which to give up with UNAVAILABLE (the outcome
   *     unknown); {@link Long#MAX_VALUE} waits as long as the session lives
   * @throws InterruptedException if interrupted first (the call stays pending)
   */
  public Object await(Call call, long deadline) throws InterruptedException {
    boolean registered = false;
    try {
      while (!call.answer.isDone()) {
        if (System.nanoTime() - deadline >= 0) {
          // checked first, each time round: a connection that answers keep-alives (the io
          // thread's nudges) but never this call kept the reading thread coming back here, and the
          // check below the read never ran (a fault campaign's client hung for good)
          throw new SemaforException(
              ErrorCode.UNAVAILABLE,
              "no answer in time from " + addressText() + "; the outcome is unknown");
        }
        Wire w = wire;
        if (w != null && reading.tryLock()) {
          userReaderDeadline = deadline;
          userReader = Thread.currentThread();
          try {
            readUntilAnswered(w, call, deadline);
          } finally {
            userReader = null;
            reading.unlock();
          }
          passReading();
          if (!call.answer.isDone() && Thread.interrupted()) {
            throw new InterruptedException();
          }
          continue;
        }
        call.waiter = Thread.currentThread();
        if (!registered) {
          parked.add(call);
          registered = true;
        }
        if (!call.answer.isDone() && (wire == null || reading.isLocked())) {
          LockSupport.parkNanos(this, Math.min(MAX_PARK_NANOS, deadline - System.nanoTime()));
        }
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
    } finally {
      call.waiter = null;
      if (registered) {
        parked.remove(call);
      }
    }
    return answerOf(call);
  }

  private static Object answerOf(Call call) {
    try {
      return call.answer.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof SemaforException s) {
        // a fresh exception so the caller's stack shows where it waited
        throw new SemaforException(s.code(), String.valueOf(s.getMessage()), s);
      }
      throw e;
    }
  }

  private void readUntilAnswered(Wire w, Call call, long deadline) {
    while (!call.answer.isDone() && wire == w) {
      ServerFrame frame;
      try {
        frame = w.read();
      } catch (IOException e) {
        broken(w, e);
        return;
      }
      lastFrame = System.nanoTime();
      dispatch(w, frame);
      if (System.nanoTime() - deadline >= 0 || Thread.currentThread().isInterrupted()) {
        return; // the caller throws; the io thread's nudge made a frame arrive to get us here
      }
    }
  }

  /** Hands the reading to a thread still waiting, or to the io thread for async calls. */
  private void passReading() {
    for (Call c : parked) {
      if (!c.answer.isDone()) {
        Thread t = c.waiter;
        if (t != null) {
          LockSupport.unpark(t);
          return;
        }
      }
    }
    if (asyncPending.get() > 0) {
      LockSupport.unpark(readerThread);
    }
  }

  private void dispatch(Wire w, ServerFrame frame) {
    switch (frame.getBodyCase()) {
      case RESPONSE -> {
        long id = frame.getResponse().getId();
        Call call = requests.remove(id);
        if (call == null || call.claim == null) {
          acknowledge(id);
        } else {
          call.claim.answered(frame.getResponse(), id, acknowledge);
        }
        if (call != null) {
          finish(call, frame.getResponse());
        }
      }
      case READ_RESPONSE -> {
        Call call = reads.remove(frame.getReadResponse().getId());
        if (call != null) {
          finish(call, frame.getReadResponse());
        }
      }
      case PONG -> pong(w, frame.getPong().getId());
      case FATAL -> {
        Failure f = frame.getFatal().getFailure();
        if (f.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
          log.info("{} no longer leads; following the leader ({})", w.address(), f.getLeader());
          preferred = new NotLeader(f.getMessage(), f.getLeader()).leaderAddress();
        } else if (f.getCode() == io.semafor.protocol.v1.ErrorCode.SESSION_EXPIRED) {
          if (ending) {
            // this client closed the session: a keep-alive that crossed the close is refused
            log.debug("server {}: {}", w.address(), f.getMessage());
          } else {
            log.warn("server {}: {}", w.address(), f.getMessage());
          }
          if (wire == w) {
            expiredSessionId = sessionId; // the io thread reports it before reconnecting
          }
        } else {
          log.warn(
              "server {} closed the connection: {} {}", w.address(), f.getCode(), f.getMessage());
        }
        broken(w, new IOException("server: " + f.getMessage()));
      }
      case WELCOME, SNAPSHOT_CHUNK, WATCH_EVENT, BODY_NOT_SET ->
          log.debug("ignoring an unexpected {}", frame.getBodyCase());
    }
  }

  /**
   * The server has the acknowledgements of the keep-alive with this id (of the oldest still
   * unconfirmed if 0: a server that answers in order). A pong read from a connection already
   * replaced is not counted: the keep-alives it answered were sent again on the new one, whose
   * pongs will count.
   */
  private void pong(Wire w, long id) {
    KeptAlive confirmed = null;
    synchronized (writeLock) {
      if (wire != w) {
        return;
      }
      if (id == 0) {
        confirmed = unconfirmedAcks.poll();
      } else {
        for (Iterator<KeptAlive> it = unconfirmedAcks.iterator(); it.hasNext(); ) {
          KeptAlive k = it.next();
          if (k.id() == id) {
            it.remove();
            confirmed = k;
            break;
          }
        }
      }
    }
    if (confirmed != null) {
      confirmed.confirmed();
    }
  }

  private void finish(Call call, Object answer) {
    if (call.async) {
      asyncPending.decrementAndGet();
    }
    call.answer.complete(answer);
    Thread t = call.waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  private void fail(Call call, SemaforException e) {
    if (call.async) {
      asyncPending.decrementAndGet();
    }
    call.answer.completeExceptionally(e);
    Thread t = call.waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  // ------------------------------------------------------------------ connection lifecycle

  private String addressText() {
    Wire w = wire;
    return w != null ? w.address().toString() : config.addresses().toString();
  }

  private ClientFrame hello(long resume) {
    return Hellos.session(config, resume, sessionSecret);
  }

  /**
   * Connects and says Hello (resuming {@code resume} if not 0, with {@code resumeHello}); if that
   * session expired, opens a new one on the same connection with {@code newHello}. Changes nothing
   * in this link: it may run for several addresses at once ({@link #dial}).
   */
  private Opened handshake(
      InetSocketAddress address, long resume, ClientFrame resumeHello, ClientFrame newHello)
      throws IOException {
    Wire w = Wire.connect(address, config.connectTimeout(), config.tls(), config.verifyHostname());
    try {
      Welcome welcome = hello(w, resumeHello);
      boolean resumeExpired = false;
      if (welcome.hasFailure()
          && resume != 0
          && welcome.getFailure().getCode() == io.semafor.protocol.v1.ErrorCode.SESSION_EXPIRED) {
        resumeExpired = true;
        welcome = hello(w, newHello);
      }
      if (welcome.hasFailure()) {
        Failure f = welcome.getFailure();
        if (f.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
          throw new NotLeader(f.getMessage(), f.getLeader());
        }
        throw new SemaforException(ErrorCodes.of(f.getCode()), f.getMessage());
      }
      w.connected();
      return new Opened(w, welcome, resumeExpired);
    } catch (IOException | RuntimeException e) {
      w.close();
      throw e;
    }
  }

  private static Welcome hello(Wire w, ClientFrame hello) throws IOException {
    w.write(Frames.encode(hello));
    while (true) {
      ServerFrame frame = w.read();
      if (frame.hasWelcome()) {
        return frame.getWelcome();
      }
      if (frame.hasFatal()) {
        Failure f = frame.getFatal().getFailure();
        if (f.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
          // accepted the Hello, then found it does not lead (an election): try again, as for a
          // Welcome that refuses with NOT_LEADER
          throw new NotLeader(f.getMessage(), f.getLeader());
        }
        throw new IOException("refused: " + f.getMessage());
      }
    }
  }

  /**
   * Makes {@code w} the connection: sends the acknowledgements not yet confirmed, then every
   * unanswered request again, in id order, before any new request can go out. Acknowledgements go
   * first so that a resent request, a close above all, finds what it acknowledges delivered. On a
   * new session (a lost one's requests failed) what is pending was issued since: it goes out now.
   */
  private void adopt(Wire w, boolean resumed) throws IOException {
    adoptedAt = System.nanoTime();
    synchronized (writeLock) {
      if (resumed) {
        for (KeptAlive unconfirmed : unconfirmedAcks) {
          w.write(unconfirmed.frame());
        }
      }
      List<Call> pending = new ArrayList<>(requests.values());
      pending.sort(Comparator.comparingLong(c -> c.id));
      for (Call c : pending) {
        w.write(c.frame);
      }
      for (Call c : reads.values()) {
        w.write(c.frame);
      }
      lastWrite = System.nanoTime();
      lastFrame = System.nanoTime();
      wire = w;
    }
    if (!acks.isEmpty()) {
      watchAcks(); // answers read before the connection broke
    }
    for (Call c : parked) {
      Thread t = c.waiter;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
    LockSupport.unpark(ioThread);
    LockSupport.unpark(readerThread);
  }

  /** The connection failed: drop it; the io thread reconnects. */
  private void broken(Wire w, IOException cause) {
    synchronized (writeLock) {
      if (wire != w) {
        return;
      }
      wire = null;
    }
    w.close();
    if (!closed) {
      log.info("lost the connection to {} ({}); reconnecting", w.address(), cause.getMessage());
    }
    LockSupport.unpark(ioThread);
  }

  /**
   * The old session ended (it expired: the server heard nothing from this client for its TTL):
   * everything pending fails; listeners are told. Called on the io thread.
   */
  private void sessionLost(long old) {
    log.warn("session {} has ended; opening a new session", old);
    SemaforException e =
        new SemaforException(
            ErrorCode.SESSION_EXPIRED,
            "session "
                + old
                + " ended: the server heard nothing from this client for its TTL; what it held"
                + " went back");
    synchronized (writeLock) {
      sessionEpoch++; // before the waiters fail: one added meanwhile sees the count moved
      nextRequestId = 0;
      acks.clear();
      for (KeptAlive k = unconfirmedAcks.poll(); k != null; k = unconfirmedAcks.poll()) {
        k.failed(e);
      }
      failAckWaiters(e);
      for (Call c : requests.values()) {
        fail(c, e);
      }
      requests.clear();
    }
    for (Runnable listener : sessionLostListeners) {
      try {
        listener.run();
      } catch (RuntimeException failed) {
        log.warn("a session-lost listener failed", failed);
      }
    }
  }

  private void failAckWaiters(SemaforException e) {
    for (var w = ackWaiters.poll(); w != null; w = ackWaiters.poll()) {
      w.completeExceptionally(e);
    }
  }

  /** A call made as or after the link closed fails now, not at its answer timeout. */
  private void failIfClosed() {
    if (closed) {
      failAll(new SemaforException(ErrorCode.UNAVAILABLE, "the client is closed"));
    }
  }

  private void failAll(SemaforException e) {
    for (Call c : requests.values()) {
      requests.remove(c.id, c);
      fail(c, e);
    }
    for (Call c : reads.values()) {
      reads.remove(c.id, c);
      fail(c, e);
    }
  }

  // ------------------------------------------------------------------ the io thread

  private void runIo() {
    while (!closed) {
      Wire w = wire;
      if (w == null) {
        reconnect();
        continue;
      }
      long now = System.nanoTime();
      boolean ackNow = acksDue;
      if (ackNow) {
        acksDue = false;
      }
      if (now - lastWrite >= keepAliveNanos
          || (ackNow && !(acks.isEmpty() && ackWaiters.isEmpty()))) {
        keepAlive();
      }
      if (now - lastFrame > Math.max(sessionTtlNanos, keepAliveNanos * 3)) {
        broken(w, new IOException("no frame for longer than the session TTL"));
        continue;
      }
      if (wentSilent(w, now)) {
        continue;
      }
      nudgeUserReader(now);
      if (!unconfirmedAcks.isEmpty() || now - lastFrame >= IDLE_READ_NANOS) {
        LockSupport.unpark(readerThread);
      }
      LockSupport.parkNanos(this, WATCH_SLICE_NANOS);
    }
  }

  /**
   * Whether the server of {@code w} stopped answering while something waits for it, in which case
   * the connection is dropped and its address avoided for a while. Probes first: a request that
   * waits its turn in a queue gets no frame for as long as it waits, and that is not silence. On
   * the io thread only.
   */
  private boolean wentSilent(Wire w, long now) {
    long heard = lastFrame;
    boolean waiting = !(requests.isEmpty() && reads.isEmpty() && unconfirmedAcks.isEmpty());
    switch (silence.tick(now, heard, waiting)) {
      case PROBE -> keepAlive(false);
      case LEAVE -> {
        silence.left(w.address(), now);
        broken(
            w,
            new IOException(
                "nothing from the server for "
                    + TimeUnit.NANOSECONDS.toMillis(now - heard)
                    + " ms, a probe unanswered: it is frozen"));
        return true;
      }
      case NONE -> {}
    }
    return false;
  }

  /**
   * A user thread blocked in an untimed read cannot see its deadline pass or an interrupt: a
   * keep-alive makes the server send a pong, and the frame wakes it to look.
   */
  private void nudgeUserReader(long now) {
    Thread reader = userReader;
    if (reader == null || now - lastNudge < NUDGE_EVERY_NANOS) {
      return;
    }
    if (reader.isInterrupted() || now - userReaderDeadline >= 0) {
      lastNudge = now;
      keepAlive(false);
    }
  }

  /** Reads for whoever is not reading themselves: asynchronous calls, pongs, an idle connection. */
  private void runReader() {
    while (!closed) {
      Wire w = wire;
      long now = System.nanoTime();
      boolean wanted =
          asyncPending.get() > 0
              || !unconfirmedAcks.isEmpty()
              || (now - lastFrame >= IDLE_READ_NANOS && now - lastWrite < keepAliveNanos);
      if (w != null && wanted && reading.tryLock()) {
        try {
          readWhileNeeded(w);
        } finally {
          reading.unlock();
        }
        passReading();
      } else {
        LockSupport.parkNanos(this, MAX_PARK_NANOS);
      }
    }
  }

  /** Reads until a blocked user thread wants to read its own answer and no async call waits. */
  private void readWhileNeeded(Wire w) {
    while (wire == w && !closed) {
      ServerFrame frame;
      try {
        frame = w.read();
      } catch (IOException e) {
        broken(w, e);
        return;
      }
      lastFrame = System.nanoTime();
      dispatch(w, frame);
      if (asyncPending.get() == 0 && (!parked.isEmpty() || unconfirmedAcks.isEmpty())) {
        return;
      }
    }
  }

  private void keepAlive() {
    keepAlive(true);
  }

  /**
   * Sends a keep-alive, with the acknowledgements and their waiters ({@code withAcks}), or plain: a
   * plain one is answered at once, so its pong can wake a thread blocked past its deadline even
   * while acknowledgements wait for a stalled commit.
   */
  private void keepAlive(boolean withAcks) {
    synchronized (writeLock) {
      if (!withAcks) {
        KeptAlive plain = new KeptAlive(++keepAliveIds, List.of(), List.of());
        unconfirmedAcks.add(plain);
        writeLocked(plain.frame());
        return;
      }
      List<CompletableFuture<Void>> waiters = new ArrayList<>();
      for (var w = ackWaiters.poll(); w != null; w = ackWaiters.poll()) {
        waiters.add(w);
      }
      List<Long> sent = new ArrayList<>();
      for (Ack ack = acks.poll(); ack != null; ack = acks.poll()) {
        sent.add(ack.id());
      }
      KeptAlive k = new KeptAlive(++keepAliveIds, sent, waiters);
      unconfirmedAcks.add(k);
      writeLocked(k.frame());
    }
  }

  private void reconnect() {
    if (expiredSessionId != 0 && expiredSessionId == sessionId) {
      sessionLost(sessionId); // the server said so: report it now, not after reconnecting
    }
    long lostAt = System.nanoTime();
    if (adoptedAt != 0 && lostAt - adoptedAt < QUICK_FAILURE) {
      quickFailureBackoff =
          quickFailureBackoff == 0
              ? TimeUnit.MILLISECONDS.toNanos(20)
              : Math.min(quickFailureBackoff * 2, QUICK_FAILURE);
      LockSupport.parkNanos(this, quickFailureBackoff);
    } else {
      quickFailureBackoff = 0;
    }
    long backoff = TimeUnit.MILLISECONDS.toNanos(20);
    boolean gaveUp = false;
    while (!closed) {
      long resume = expiredSessionId == sessionId ? 0 : sessionId;
      Dialer.Outcome<Opened> outcome = dial(resume);
      boolean electing = false;
      if (outcome instanceof Dialer.Connected<Opened> connected && closed) {
        connected.handshake().abandon(); // closed while connecting: nobody would close this one
        return;
      }
      if (outcome instanceof Dialer.Connected<Opened> connected) {
        Opened opened = connected.handshake();
        take(opened, resume);
        try {
          adopt(opened.wire(), sessionId == resume);
          log.info("reconnected to {} (session {})", connected.address(), sessionId);
          return;
        } catch (IOException e) {
          opened.abandon();
          log.debug("lost {} at once: {}", connected.address(), e.getMessage());
        }
      } else {
        Dialer.Failed<Opened> failed = (Dialer.Failed<Opened>) outcome;
        electing = failed.anyAnswered(); // a live member without a leader yet: look again soon
        SemaforException refusal = failed.refusal();
        log.debug("cannot reconnect to {}: {}", config.addresses(), failed.last());
        if (refusal != null && refusal.code() == ErrorCode.UNAUTHENTICATED) {
          // the token was revoked or expired: say so to every caller now rather than as
          // UNAVAILABLE later; reconnecting goes on in case the operator restores it
          failAll(
              new SemaforException(
                  ErrorCode.UNAUTHENTICATED,
                  refusal.getMessage() + "; the outcome of pending requests is unknown",
                  refusal));
        }
      }
      if (!gaveUp && System.nanoTime() - lostAt > config.giveUpAfter().toNanos()) {
        gaveUp = true;
        failAll(
            new SemaforException(
                ErrorCode.UNAVAILABLE,
                "no server reachable at "
                    + config.addresses()
                    + " for "
                    + config.giveUpAfter()
                    + "; the outcome of pending requests is unknown"));
      }
      if (electing) {
        // the cluster is up and electing: a new leader is a matter of its election timeout,
        // and backing off exponentially would add up to a second to every failover
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(50));
        continue;
      }
      LockSupport.parkNanos(this, backoff);
      backoff = Math.min(backoff * 2, TimeUnit.SECONDS.toNanos(1));
    }
  }

  // ------------------------------------------------------------------ closing

  /**
   * The client is closing its session: the server's word that the session ended is expected now,
   * not news to warn about (a keep-alive sent as the close was applied is refused with it). Never
   * blocks; thread-safe.
   */
  public void ending() {
    ending = true;
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Stops: fails what is pending, closes the connection, stops the io thread. The caller ends the
   * session first if it wants its permits back at once.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Wire w;
    synchronized (writeLock) {
      w = wire;
      wire = null;
    }
    if (w != null) {
      w.close();
    }
    LockSupport.unpark(ioThread);
    LockSupport.unpark(readerThread);
    try {
      ioThread.join(TimeUnit.SECONDS.toMillis(2));
      readerThread.join(TimeUnit.SECONDS.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    dialing.shutdownNow();
    SemaforException e = new SemaforException(ErrorCode.UNAVAILABLE, "the client is closed");
    failAll(e);
    for (KeptAlive k = unconfirmedAcks.poll(); k != null; k = unconfirmedAcks.poll()) {
      k.failed(e);
    }
    failAckWaiters(e);
  }

  /** Drops the connection without ending the session, as a network failure would (for tests). */
  public void dropConnection() {
    Wire w = wire;
    if (w != null) {
      broken(w, new IOException("dropped on purpose"));
    }
  }
}
