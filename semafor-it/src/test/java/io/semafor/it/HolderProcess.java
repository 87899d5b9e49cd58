package io.semafor.it;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.time.Duration;

/**
 * A client in its own process, for tests that kill it: connects, takes {@code owned} permits of
 * {@code semaphore} as its own, then asks for {@code waitFor} more (which wait), prints READY, and
 * waits to be killed. Args: address semaphore owned waitFor ttlMillis.
 */
public final class HolderProcess {
  private HolderProcess() {}

  public static void main(String[] args) throws Exception {
    SemaforClient client =
        SemaforClient.builder()
            .addresses(args[0])
            .sessionTtl(Duration.ofMillis(Long.parseLong(args[4])))
            .clientName("holder")
            .connect();
    NamedSemaphore semaphore = client.semaphore(args[1]);
    long owned = Long.parseLong(args[2]);
    long waitFor = Long.parseLong(args[3]);
    if (owned > 0) {
      semaphore.acquirePermit(owned);
    }
    java.util.concurrent.CompletableFuture<?> waiting =
        waitFor > 0
            ? semaphore.acquirePermitAsync(waitFor, Duration.ofHours(1))
            : java.util.concurrent.CompletableFuture.completedFuture(null);
    System.out.println("READY " + client.sessionId());
    System.out.flush();
    waiting.join(); // until killed
    Thread.sleep(Long.MAX_VALUE);
  }
}
