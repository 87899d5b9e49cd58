package io.semafor.it;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.time.Duration;

/**
 * A client in its own process that waits for one permit of a semaphore, for tests that kill it as
 * the permit is granted: connects, warms up, prints READY, waits in {@code form} ({@code
 * OWNED_ACQUIRE}, {@code OWNED_SEMOP} or {@code OWNED_ACQUIRE_ASYNC}), prints GOT once it has the
 * permit, and waits to be killed. Args: address semaphore form ttlMillis.
 */
public final class WaitingProcess {
  private WaitingProcess() {}

  public static void main(String[] args) throws Exception {
    SemaforClient client =
        SemaforClient.builder()
            .addresses(args[0])
            .sessionTtl(Duration.ofMillis(Long.parseLong(args[3])))
            .clientName("waiting")
            .connect();
    NamedSemaphore semaphore = client.semaphore(args[1]);
    warmUp(client);
    System.out.println("READY " + client.sessionId());
    System.out.flush();
    Duration wait = Duration.ofMinutes(1);
    switch (args[2]) {
      case "OWNED_ACQUIRE" -> semaphore.tryAcquirePermit(1, wait);
      case "OWNED_SEMOP" -> client.semop().take(args[1], 1).owned().execute(wait);
      case "OWNED_ACQUIRE_ASYNC" -> semaphore.acquirePermitAsync(1, wait).join();
      default -> throw new IllegalArgumentException("form: " + args[2]);
    }
    System.out.println("GOT");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // until killed
  }

  /**
   * Runs the client's paths until compiled: a fresh JVM takes about 100 ms to act on its first
   * grant, long enough for any kill to land after the grant came but before the call returned.
   */
  private static void warmUp(SemaforClient client) throws InterruptedException {
    NamedSemaphore warm = client.semaphore("warm-up-" + ProcessHandle.current().pid());
    warm.create(1, io.semafor.SemaphoreOptions.DEFAULT);
    for (int i = 0; i < 300; i++) {
      java.util.Objects.requireNonNull(warm.tryAcquirePermit(1, Duration.ofSeconds(5))).release();
      client.semop().take(warm.name(), 1).owned().execute(Duration.ofSeconds(5));
      warm.release(1);
    }
    warm.delete();
  }
}
