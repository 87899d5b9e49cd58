package io.semafor.server.http;

import java.util.Set;

/**
 * One route: a method and a path template ({@code /v1/semaphores/{name}/leases}, each {@code
 * {param}} one percent-encoded path segment), the OpenAPI operation it is, the statuses it can
 * answer (the OpenAPI test holds the document to them), and its handler. A template that ends in
 * {@code *} is a prefix: it takes every path that starts with what comes before the {@code *} (the
 * admin port's routes, as the JDK's HTTP server's contexts did); the method {@code *} takes every
 * method, the route telling the wrong ones itself.
 */
public record Route(
    String method, String template, String operationId, Set<Integer> statuses, Handler handler) {

  /** Answers one request; may answer later, from any thread, through the exchange. */
  @FunctionalInterface
  public interface Handler {
    /**
     * Handles {@code exchange}; an {@link ApiException} thrown here is answered as it says (the
     * handler must not have changed anything before throwing).
     */
    void handle(Exchange exchange);
  }

  /** A route; {@code statuses} is copied. */
  public Route {
    statuses = Set.copyOf(statuses);
  }
}
