package io.semafor.http;

import java.util.Set;

/**
 * One route: a method and a path template ({@code /v1/semaphores/{name}/leases}, each {@code
 * {param}} one percent-encoded path segment), the OpenAPI operation it is, the statuses it can
 * answer (the OpenAPI test holds the document to them), and its handler.
 */
record Route(
    String method, String template, String operationId, Set<Integer> statuses, Handler handler) {

  /** Answers one request; may answer later, from any thread, through the exchange. */
  @FunctionalInterface
  interface Handler {
    /**
     * Handles {@code exchange}; an {@link ApiException} thrown here is answered as it says (the
     * handler must not have changed anything before throwing).
     */
    void handle(Exchange exchange);
  }

  Route {
    statuses = Set.copyOf(statuses);
  }
}
