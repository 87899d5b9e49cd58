package io.semafor.client;

import io.semafor.Policy;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A named Semafor semaphore that is a {@link java.util.concurrent.Semaphore}, for code written
 * against the JDK's. Permits taken here are owned by the client's session, so they come back if the
 * process dies. {@link #release(int)} pays back what this adapter's client owns first, then
 * increments (docs/semantics.md#owned), so a thread may release permits another took, as with the
 * JDK.
 *
 * <p>Differences from the JDK, by design: the semaphore is shared by every process using the name;
 * it is fair (FIFO) unless created BARGING, and {@link #tryAcquire()} waits its turn behind a
 * blocked earlier request instead of barging; permits are never negative, so {@link #reducePermits}
 * is not supported. Every method may throw {@link SemaforException}. As with the JDK, interrupting
 * a thread blocked in {@link #acquire} or a timed {@link #tryAcquire(long, TimeUnit)} throws {@link
 * InterruptedException}; here its request is also withdrawn from the server's queue, and permits
 * granted before the withdrawal arrived are given back.
 *
 * <p>Thread-safe.
 */
public final class SemaforSemaphore extends Semaphore {
  private static final long serialVersionUID = 1L;

  private final transient NamedSemaphore semaphore;
  private final transient AtomicLong owned = new AtomicLong();

  SemaforSemaphore(NamedSemaphore semaphore) {
    super(0, true);
    this.semaphore = semaphore;
  }

  /** The Semafor semaphore behind this adapter. */
  public NamedSemaphore semaphore() {
    return semaphore;
  }

  @Override
  public void acquire() throws InterruptedException {
    acquire(1);
  }

  @Override
  public void acquire(int permits) throws InterruptedException {
    checkPermits(permits);
    take(permits, null);
  }

  @Override
  public void acquireUninterruptibly() {
    acquireUninterruptibly(1);
  }

  @Override
  public void acquireUninterruptibly(int permits) {
    checkPermits(permits);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          take(permits, null);
          return;
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

  @Override
  public boolean tryAcquire() {
    return tryAcquire(1);
  }

  @Override
  public boolean tryAcquire(int permits) {
    checkPermits(permits);
    try {
      return take(permits, Duration.ZERO);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
    return tryAcquire(1, timeout, unit);
  }

  @Override
  public boolean tryAcquire(int permits, long timeout, TimeUnit unit) throws InterruptedException {
    checkPermits(permits);
    return take(permits, Duration.ofNanos(Math.max(0, unit.toNanos(timeout))));
  }

  private boolean take(int permits, @Nullable Duration timeout) throws InterruptedException {
    Permit permit =
        timeout == null
            ? semaphore.acquirePermit(permits)
            : semaphore.tryAcquirePermit(permits, timeout);
    if (permit == null) {
      return false;
    }
    owned.addAndGet(permits);
    return true;
  }

  @Override
  public void release() {
    release(1);
  }

  @Override
  public void release(int permits) {
    checkPermits(permits);
    long ownedNow;
    long paid;
    do {
      ownedNow = owned.get();
      paid = Math.min(ownedNow, permits);
    } while (!owned.compareAndSet(ownedNow, ownedNow - paid));
    if (paid > 0) {
      semaphore.release(paid);
    }
    if (permits > paid) {
      semaphore.increment(permits - paid);
    }
  }

  @Override
  public int availablePermits() {
    return (int) Math.min(Integer.MAX_VALUE, semaphore.value());
  }

  /** Takes every permit available now (consumed, not owned) and returns how many. */
  @Override
  public int drainPermits() {
    try {
      return (int) Math.min(Integer.MAX_VALUE, semaphore.decrement(Long.MAX_VALUE, Duration.ZERO));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  /** Not supported: Semafor values are never negative. */
  @Override
  protected void reducePermits(int reduction) {
    throw new UnsupportedOperationException("Semafor semaphores cannot go negative");
  }

  @Override
  public boolean isFair() {
    return semaphore.info().options().policy() == Policy.FIFO;
  }

  /**
   * How many requests wait on the semaphore, from every process. (The JDK's {@code
   * getQueueLength()} and {@code hasQueuedThreads()} are final and count threads queued on the
   * JDK's own synchroniser, which this class never uses: they always say none.)
   */
  public int waiters() {
    return semaphore.info().waiters();
  }

  /** Empty: the waiters are in other processes too, and not threads of this one. */
  @Override
  protected Collection<Thread> getQueuedThreads() {
    return List.of();
  }

  @Override
  public String toString() {
    return "SemaforSemaphore[" + semaphore.name() + "]";
  }

  private static void checkPermits(int permits) {
    if (permits < 0) {
      throw new IllegalArgumentException("permits < 0: " + permits);
    }
  }
}
