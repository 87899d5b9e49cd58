package io.semafor.http;

import io.semafor.ClientInfo;
import io.semafor.client.SemaphoreInfo;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON shapes of the API's answers (docs/http.md). Ids of 63 bits (permit and session ids) are
 * decimal strings: JavaScript's numbers hold integers exactly only up to 2^53. Stateless.
 */
final class Views {
  private Views() {}

  /** A semaphore's status: what {@code GET /v1/semaphores/{name}} answers. */
  static Map<String, Object> status(SemaphoreInfo s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.name());
    m.put("value", s.value());
    m.put("capacity", s.options().capacity());
    m.put("policy", s.options().policy().name());
    m.put("max_per_session", s.options().maxPerSession());
    m.put("waiters", s.waiters());
    m.put("holders", s.holders());
    m.put("leases", s.leaseCount());
    m.put("owned", s.owned());
    m.put("leased", s.leased());
    m.put("undelivered", s.undelivered());
    m.put("revision", s.revision());
    return m;
  }

  /** A semaphore's status with its queue, holders and leases: what {@code inspect} answers. */
  static Map<String, Object> detail(SemaphoreInfo s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", status(s));
    m.put("queue", s.queue().stream().map(Views::waiter).toList());
    m.put("holders", s.holderList().stream().map(Views::holder).toList());
    m.put("leases", s.leases().stream().map(Views::lease).toList());
    return m;
  }

  private static Map<String, Object> waiter(SemaphoreInfo.Waiter w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("session_id", Long.toString(w.sessionId()));
    m.put("request_id", w.requestId());
    m.put("sequence", w.sequence());
    m.put("kind", w.kind().toLowerCase(Locale.ROOT));
    m.put("amount", w.amount());
    m.put("times_out_in_ms", millis(w.timesOutIn()));
    m.put("client", client(w.client()));
    return m;
  }

  private static Map<String, Object> holder(SemaphoreInfo.Holder h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("session_id", Long.toString(h.sessionId()));
    m.put("owned", h.owned());
    m.put("slots", h.slots());
    m.put("client", client(h.client()));
    return m;
  }

  private static Map<String, Object> lease(SemaphoreInfo.LeaseInfo l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("permit_id", Long.toString(l.permitId()));
    m.put("session_id", Long.toString(l.sessionId()));
    m.put("amount", l.amount());
    m.put("slots", l.slots());
    m.put("token", l.token());
    m.put("age_ms", l.age().toMillis());
    m.put("expires_in_ms", l.expiresIn().toMillis());
    return m;
  }

  private static Map<String, Object> client(ClientInfo c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", c.name());
    m.put("host", c.host());
    m.put("pid", c.pid());
    return m;
  }

  private static @Nullable Long millis(@Nullable Duration d) {
    return d == null ? null : d.toMillis();
  }

  /** A page of {@code GET /v1/semaphores}. */
  static Map<String, Object> page(List<SemaphoreInfo> semaphores, boolean more) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("semaphores", semaphores.stream().map(Views::status).toList());
    m.put("more", more);
    m.put(
        "next_after",
        more && !semaphores.isEmpty() ? semaphores.get(semaphores.size() - 1).name() : null);
    return m;
  }

  /** A map of alternating keys and values, in order (values may be null). */
  static Map<String, Object> of(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }
}
