package io.semafor.client.internal;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.protocol.v1.ServerFrame;
import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Who reads a {@link Link}'s connection (leader/follower): a thread waiting for its answer reads
 * the socket itself when no one else is, handing every frame to the link, until its own answer
 * comes; so a thread alone on a client reads its own answer with no hand-off, as with a plain
 * blocking socket. A thread that finds someone reading parks; the reader completes its future and
 * unparks it, and when the reader's own answer arrives it passes the reading on to a parked thread.
 * The reader thread reads when no caller is: for asynchronous calls, confirmations, and an idle
 * connection (the pongs of keep-alives, which the session machine expects within its deadline).
 *
 * <p>Reads block in the kernel with no timeout: a timed read on a JDK socket costs a failed read, a
 * poll and a read where an untimed one costs one read (decision 0011). So a reading caller is woken
 * only by a frame: when its deadline passes or it is interrupted, the link's conductor nudges the
 * server (a keep-alive) and the pong wakes it. Thread-safe.
 */
final class LinkReading {
  /** The longest a parked caller sleeps before it looks again. */
  private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Nothing read for this long: the reader thread reads (pongs, a server's farewell). */
  private static final long IDLE_READ_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final Link link;
  private final ReentrantLock reading = new ReentrantLock();
  private final ConcurrentLinkedQueue<Call> parked = new ConcurrentLinkedQueue<>();
  private final AtomicInteger asyncPending = new AtomicInteger();
  private final Thread readerThread;
  private volatile boolean stopped;

  /** The caller reading now (null if none, or the reader thread), and when it gives up. */
  private volatile @Nullable Thread userReader;

  private volatile long userReaderDeadline;

  LinkReading(Link link) {
    this.link = link;
    this.readerThread = new Thread(this::runReader, "semafor-client-reader");
    readerThread.setDaemon(true);
  }

  void start() {
    readerThread.start();
  }

  /** A call was sent: an asynchronous one is read for by the reader thread. */
  void started(Call call) {
    if (call.async) {
      asyncPending.incrementAndGet();
      LockSupport.unpark(readerThread);
    }
  }

  /**
   * Blocks until the call is answered, reading the connection itself when no one else is.
   *
   * @throws InterruptedException if interrupted first (the call stays pending)
   */
  Object await(Call call, long deadline) throws InterruptedException {
    boolean registered = false;
    try {
      while (!call.answer.isDone()) {
        if (Deadlines.passed(System.nanoTime(), deadline)) {
          // checked first, each time round: a connection that answers keep-alives (the nudges)
          // but never this call kept the reading thread coming back here
          Wire w = link.wire;
          throw new SemaforException(
              ErrorCode.UNAVAILABLE,
              "no answer in time from "
                  + (w != null ? w.address() : link.config().addresses())
                  + "; the outcome is unknown");
        }
        Wire w = link.wire;
        if (w != null && reading.tryLock()) {
          long conn = link.connOf(w);
          userReaderDeadline = deadline;
          userReader = Thread.currentThread();
          try {
            if (conn >= 0) { // else it was replaced meanwhile: look again
              readUntilAnswered(w, conn, call, deadline);
            }
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
        if (!call.answer.isDone() && (link.wire == null || reading.isLocked())) {
          LockSupport.parkNanos(
              this, Deadlines.remaining(System.nanoTime(), deadline, MAX_PARK_NANOS));
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

  private void readUntilAnswered(Wire w, long conn, Call call, long deadline) {
    while (!call.answer.isDone() && link.wire == w) {
      if (!readOne(w, conn)) {
        return;
      }
      if (Deadlines.passed(System.nanoTime(), deadline) || Thread.currentThread().isInterrupted()) {
        return; // the caller throws; the conductor's nudge made a frame arrive to get us here
      }
    }
  }

  /** Reads one frame and hands it to the link; false if the connection broke. */
  private boolean readOne(Wire w, long conn) {
    ServerFrame frame;
    try {
      frame = w.read();
    } catch (IOException e) {
      link.effects.broken(w, e);
      return false;
    }
    link.effects.received(frame, conn);
    return true;
  }

  /** Hands the reading to a thread still waiting, or to the reader thread for async calls. */
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
    if (wanted(System.nanoTime())) {
      LockSupport.unpark(readerThread); // not after every answer: a wake-up each costs a third
    }
  }

  /** Completes a call with its answer and wakes its waiter. */
  void finish(Call call, Object answer) {
    if (call.async) {
      asyncPending.decrementAndGet();
    }
    call.answer.complete(answer);
    Thread t = call.waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  void fail(Call call, SemaforException e) {
    if (call.async) {
      asyncPending.decrementAndGet();
    }
    call.answer.completeExceptionally(e);
    Thread t = call.waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /** A connection was made or a session attached: waiting callers and the reader look again. */
  void connectionChanged() {
    for (Call c : parked) {
      Thread t = c.waiter;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
    LockSupport.unpark(readerThread);
  }

  /** Whether a reading caller is past its deadline or interrupted: it needs a frame to look up. */
  boolean wantsNudge(long now) {
    Thread reader = userReader;
    return reader != null && (reader.isInterrupted() || Deadlines.passed(now, userReaderDeadline));
  }

  /** Called by the conductor every turn: wakes the reader thread if it should read. */
  void wakeIfWanted(long now) {
    if (wanted(now)) {
      LockSupport.unpark(readerThread);
    }
  }

  void wake() {
    LockSupport.unpark(readerThread);
  }

  private boolean wanted(long now) {
    return asyncPending.get() > 0
        || link.awaitingForNoCaller()
        || (userReader == null && now - link.lastFrame >= IDLE_READ_NANOS);
  }

  /** Reads for whoever is not reading themselves. */
  private void runReader() {
    while (!stopped) {
      Wire w = link.wire;
      long now = System.nanoTime();
      if (w != null && wanted(now) && reading.tryLock()) {
        long conn = link.connOf(w);
        try {
          if (conn >= 0) {
            readWhileNeeded(w, conn);
          }
        } finally {
          reading.unlock();
        }
        passReading();
      } else {
        LockSupport.parkNanos(this, MAX_PARK_NANOS);
      }
    }
  }

  /** Reads until a caller waits to read its own answer and no async call or confirmation waits. */
  private void readWhileNeeded(Wire w, long conn) {
    while (link.wire == w && !stopped) {
      if (!readOne(w, conn)) {
        return;
      }
      if (asyncPending.get() == 0 && (!parked.isEmpty() || !link.awaitingForNoCaller())) {
        return;
      }
    }
  }

  void stop() {
    stopped = true;
    LockSupport.unpark(readerThread);
    try {
      readerThread.join(TimeUnit.SECONDS.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
