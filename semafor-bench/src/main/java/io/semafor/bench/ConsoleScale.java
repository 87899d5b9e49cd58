package io.semafor.bench;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How the admin console answers with many semaphores and waiters (issue 16, point 4;
 * docs/benchmarks.md "Console"). Fills a running server with {@code N} semaphores named {@code
 * scale/} and six digits and {@code W} waiters on {@code scale-busy} (from {@code W / 1000}
 * clients), then times, over HTTP on 127.0.0.1, each request the page makes, {@code R} times: the
 * first page of the list (100), a page in the middle, a page filtered by a prefix that 1,000 names
 * match, the busy semaphore's view (its first 200 waiters), and the time from opening the live
 * stream to its first view of the busy semaphore. Prints the median and the 99th percentile of
 * each, in milliseconds.
 *
 * <p>Run by {@code semafor-bench/console-scale.sh [N] [W]}, which starts the server and stops it.
 */
public final class ConsoleScale {
  private ConsoleScale() {}

  public static void main(String[] args) throws Exception {
    String server = args[0];
    String admin = args[1];
    int semaphores = Integer.parseInt(args[2]);
    int waiters = Integer.parseInt(args[3]);
    int repeats = args.length > 4 ? Integer.parseInt(args[4]) : 50;

    List<SemaforClient> clients = new ArrayList<>();
    try (SemaforClient filler = SemaforClient.connect(server)) {
      long started = System.nanoTime();
      List<CompletableFuture<Boolean>> creates = new ArrayList<>();
      for (int i = 0; i < semaphores; i++) {
        creates.add(
            filler
                .semaphore(String.format(Locale.ROOT, "scale/%06d", i))
                .createAsync(1, io.semafor.SemaphoreOptions.DEFAULT));
        if (creates.size() == 2_000) {
          CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new))
              .get(60, TimeUnit.SECONDS);
          creates.clear();
        }
      }
      CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      NamedSemaphore busy = filler.semaphore("scale-busy");
      busy.create(0);
      System.out.printf(
          Locale.ROOT,
          "created %,d semaphores in %.1f s%n",
          semaphores,
          (System.nanoTime() - started) / 1e9);
      int perClient = 1_000;
      for (int c = 0; c * perClient < waiters; c++) {
        SemaforClient client =
            SemaforClient.builder().addresses(server).clientName("waiter-" + c).connect();
        clients.add(client);
        for (int i = 0; i < perClient && c * perClient + i < waiters; i++) {
          var unused = client.semaphore("scale-busy").acquireAsync(1, Duration.ofHours(1));
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (busy.info().waiters() < waiters && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      System.out.printf(Locale.ROOT, "%,d waiters on scale-busy%n", busy.info().waiters());

      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      time(http, admin, "list, first page of 100", "/api/semaphores?limit=100", repeats);
      time(
          http,
          admin,
          "list, a page in the middle",
          "/api/semaphores?limit=100&after=scale/"
              + String.format(Locale.ROOT, "%06d", semaphores / 2),
          repeats);
      time(
          http,
          admin,
          "list, prefix matching 1,000",
          "/api/semaphores?limit=100&prefix=scale/050",
          repeats);
      time(http, admin, "list, a page of 500", "/api/semaphores?limit=500", repeats);
      time(http, admin, "one semaphore, 10,000 waiters", "/api/semaphore?name=scale-busy", repeats);
      timeStream(http, admin, repeats);
    } finally {
      for (SemaforClient c : clients) {
        c.close();
      }
    }
  }

  private static void time(HttpClient http, String admin, String what, String path, int repeats)
      throws Exception {
    long[] millis = new long[repeats];
    int bytes = 0;
    for (int i = 0; i < repeats; i++) {
      long t = System.nanoTime();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(admin + path)).build(),
              HttpResponse.BodyHandlers.ofString());
      millis[i] = System.nanoTime() - t;
      if (r.statusCode() != 200) {
        throw new IllegalStateException(path + ": " + r.statusCode() + " " + r.body());
      }
      bytes = r.body().length();
    }
    report(what + " (" + bytes / 1024 + " KiB)", millis);
  }

  private static void timeStream(HttpClient http, String admin, int repeats) throws Exception {
    long[] millis = new long[repeats];
    for (int i = 0; i < repeats; i++) {
      long t = System.nanoTime();
      HttpResponse<InputStream> r =
          http.send(
              HttpRequest.newBuilder(URI.create(admin + "/api/stream?name=scale-busy")).build(),
              HttpResponse.BodyHandlers.ofInputStream());
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.equals("event: semaphore")) {
            in.readLine();
            break;
          }
        }
      }
      millis[i] = System.nanoTime() - t;
    }
    report("stream, open to the busy semaphore's view", millis);
  }

  private static void report(String what, long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "%-52s p50 %6.1f ms   p99 %6.1f ms%n",
        what,
        sorted[sorted.length / 2] / 1e6,
        sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6);
  }
}
