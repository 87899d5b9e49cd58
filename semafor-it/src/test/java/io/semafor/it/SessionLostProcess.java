package io.semafor.it;

import io.semafor.client.SemaforClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A client in its own process, for tests that freeze it: connects with the given session TTL, takes
 * one owned permit of {@code semaphore} and asks for one more (which waits), prints {@code READY},
 * and prints {@code LOST} each time its {@code onSessionLost} listener runs. Args: address
 * semaphore ttlMillis.
 */
public final class SessionLostProcess {
  private SessionLostProcess() {}

  public static void main(String[] args) throws Exception {
    SemaforClient client =
        SemaforClient.builder()
            .addresses(args[0])
            .sessionTtl(Duration.ofMillis(Long.parseLong(args[2])))
            .clientName("frozen")
            .connect();
    client.onSessionLost(
        () -> {
          System.out.println("LOST");
          System.out.flush();
        });
    client.semaphore(args[1]).acquirePermit(1);
    CompletableFuture<?> waiting =
        client.semaphore(args[1]).acquirePermitAsync(1, Duration.ofHours(1));
    System.out.println("READY");
    System.out.flush();
    try {
      waiting.join(); // fails when the session is lost
    } catch (CompletionException expected) {
      // the waiter went with the session
    }
    Thread.sleep(Long.MAX_VALUE); // until killed
  }
}
