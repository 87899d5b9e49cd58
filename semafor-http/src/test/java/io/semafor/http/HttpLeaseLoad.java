package io.semafor.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP API's figure (docs/benchmarks.md): lease acquire + release per second at N callers, each
 * a thread with its own keep-alive HTTP/1.1 connection, against a running server. JDK only, so it
 * runs from the test classes alone:
 *
 * <pre>
 * java -cp semafor-http/target/test-classes io.semafor.http.HttpLeaseLoad \
 *     http://127.0.0.1:7402 16 10
 * </pre>
 *
 * Bounded: it runs the given seconds (after 2 s of warm-up) and stops.
 */
public final class HttpLeaseLoad {
  private static final Pattern PERMIT = Pattern.compile("\"permit_id\":\"(\\d+)\"");

  private HttpLeaseLoad() {}

  public static void main(String[] args) throws Exception {
    String base = args.length > 0 ? args[0] : "http://127.0.0.1:7402";
    int callers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    // lease: the figure; get: one read through the gateway; noroute: a 404 from the router alone
    // (the HTTP stack and this driver, no gateway)
    String mode = args.length > 3 ? args[3] : "lease";
    String name = "load-http";
    HttpClient setup = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    setup.send(
        HttpRequest.newBuilder(URI.create(base + "/v1/semaphores/" + name))
            .PUT(HttpRequest.BodyPublishers.ofString("{\"initial\": " + callers + "}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    AtomicLong done = new AtomicLong();
    AtomicBoolean counting = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      Thread t =
          new Thread(
              () -> {
                HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                HttpRequest acquire =
                    HttpRequest.newBuilder(URI.create(base + "/v1/semaphores/" + name + "/leases"))
                        .timeout(Duration.ofSeconds(10))
                        .POST(
                            HttpRequest.BodyPublishers.ofString(
                                "{\"amount\": 1, \"ttl_ms\": 30000, \"timeout_ms\": 5000}"))
                        .build();
                HttpRequest probe =
                    HttpRequest.newBuilder(
                            URI.create(
                                base
                                    + (mode.equals("get") ? "/v1/semaphores/" + name : "/v1/none")))
                        .timeout(Duration.ofSeconds(10))
                        .build();
                try {
                  while (!stop.get() && !mode.equals("lease")) {
                    http.send(probe, HttpResponse.BodyHandlers.ofString());
                    if (counting.get()) {
                      done.incrementAndGet();
                    }
                  }
                  while (!stop.get()) {
                    String lease = http.send(acquire, HttpResponse.BodyHandlers.ofString()).body();
                    Matcher m = PERMIT.matcher(lease);
                    if (!m.find()) {
                      throw new IllegalStateException("not granted: " + lease);
                    }
                    HttpResponse<String> released =
                        http.send(
                            HttpRequest.newBuilder(
                                    URI.create(base + "/v1/leases/" + m.group(1) + "?name=" + name))
                                .timeout(Duration.ofSeconds(10))
                                .DELETE()
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (released.statusCode() != 200) {
                      throw new IllegalStateException("release: " + released.body());
                    }
                    if (counting.get()) {
                      done.incrementAndGet();
                    }
                  }
                } catch (Exception e) {
                  System.err.println("caller failed: " + e);
                }
              });
      t.start();
      threads.add(t);
    }
    Thread.sleep(2000);
    counting.set(true);
    long start = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    counting.set(false);
    double elapsed = (System.nanoTime() - start) / 1e9;
    stop.set(true);
    for (Thread t : threads) {
      t.join(15_000);
    }
    System.out.printf(
        "%d callers, %s, %.1f s: %d, %.0f/s%n",
        callers, mode, elapsed, done.get(), done.get() / elapsed);
  }
}
