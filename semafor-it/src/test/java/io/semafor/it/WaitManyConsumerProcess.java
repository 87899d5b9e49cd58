package io.semafor.it;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.WaitMany;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A WaitMany consumer in its own process, for tests that freeze it: connects with the given session
 * TTL, asks a WaitMany list for one permit of {@code semaphore}, prints {@code WAITING}, waits up
 * to 30 s ({@code await}, or {@code awaitAsync} if the fourth argument is {@code async}), and
 * prints one line, {@code RESULT reported=[grants its callback got]} or {@code RESULT failed=CODE
 * reported=[...]}, then exits. Args: address semaphore ttlMillis [async].
 */
public final class WaitManyConsumerProcess {
  private WaitManyConsumerProcess() {}

  public static void main(String[] args) throws Exception {
    List<Long> reported = new CopyOnWriteArrayList<>();
    try (SemaforClient client =
        SemaforClient.builder()
            .addresses(args[0])
            .sessionTtl(Duration.ofMillis(Long.parseLong(args[2])))
            .clientName("wait-many-consumer")
            .connect()) {
      WaitMany list = client.waitMany();
      list.add(args[1], 1, reported::add);
      System.out.println("WAITING");
      System.out.flush();
      boolean async = args.length > 3 && args[3].equals("async");
      try {
        if (async) {
          list.awaitAsync(Duration.ofSeconds(30)).get();
        } else {
          list.await(Duration.ofSeconds(30));
        }
        System.out.println("RESULT reported=" + reported);
      } catch (SemaforException e) {
        System.out.println("RESULT failed=" + e.code() + " reported=" + reported);
      } catch (java.util.concurrent.ExecutionException e) {
        String code =
            e.getCause() instanceof SemaforException se ? se.code().name() : String.valueOf(e);
        System.out.println("RESULT failed=" + code + " reported=" + reported);
      }
      System.out.flush();
    }
  }
}
