package io.semafor.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.semafor.client.SemaforException;
import io.semafor.client.SemaphoreWatch;
import io.semafor.server.http.ApiException;
import io.semafor.server.http.EventStream;
import io.semafor.server.http.Exchange;
import io.semafor.server.http.JsonBody;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A watch as Server-Sent Events: a {@link SemaphoreWatch} of the caller's token relayed event by
 * event, {@code id:} being the revision, resuming from {@code Last-Event-ID}. The headers wait for
 * the watch's first event, so a watch the server refuses at once (no {@code read} permission, a bad
 * name) is answered with its error status rather than a stream. Events of one revision touching
 * several semaphores share its id; a resume from {@code Last-Event-ID: R} restarts after {@code
 * R-1}, so a stream cut in the middle of revision R loses none of it (its events may come twice).
 * Thread-safe.
 */
final class WatchRoute {
  private final Calls calls;
  private final ClientPool pool;
  private final HttpConfig config;
  private final Executor closer;

  WatchRoute(Calls calls, ClientPool pool, HttpConfig config, Executor closer) {
    this.calls = calls;
    this.pool = pool;
    this.config = config;
    this.closer = closer;
  }

  @SuppressWarnings("FutureReturnValueIgnored") // failures are answered or logged by the stages
  void watch(Exchange e, String name, boolean prefix) {
    long after = lastEventId(e);
    boolean summary = ApiRoutes.flag(e.query("summary"));
    String token = calls.token(e);
    ClientPool.Entry entry = pool.use(token);
    if (entry.waits.incrementAndGet() > config.maxWaitsPerPrincipal()) {
      entry.waits.decrementAndGet();
      pool.done(entry);
      throw Calls.exhausted(config.maxWaitsPerPrincipal());
    }
    Relay relay = new Relay(e, entry);
    e.onClose(relay::end); // the caller left before the first event
    entry.client.whenComplete(
        (client, failure) -> {
          if (failure != null) {
            relay.end();
            e.fail(failure);
            return;
          }
          try {
            relay.started(client.watchAfter(name, prefix, summary, Math.max(0, after - 1), relay));
          } catch (RuntimeException ex) {
            relay.end();
            e.fail(ex);
          }
        });
  }

  /** {@code Last-Event-ID} (or {@code ?last_event_id=}), 0 if none. */
  private static long lastEventId(Exchange e) {
    String raw = e.header("Last-Event-ID");
    if (raw == null) {
      raw = e.query("last_event_id");
    }
    if (raw == null || raw.isBlank()) {
      return 0;
    }
    try {
      long v = Long.parseLong(raw.strip());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException ex) {
      // refused below
    }
    throw ApiException.invalid("Last-Event-ID", "must be a revision (an integer >= 0), was " + raw);
  }

  /** Relays one watch's events to one caller's stream. */
  private final class Relay implements SemaphoreWatch.Listener {
    private final Exchange exchange;
    private final ClientPool.Entry entry;
    private @Nullable SemaphoreWatch watch;
    private @Nullable EventStream stream;
    private boolean ended;

    Relay(Exchange exchange, ClientPool.Entry entry) {
      this.exchange = exchange;
      this.entry = entry;
    }

    synchronized void started(SemaphoreWatch w) {
      watch = w;
      if (ended) {
        closer.execute(w::close);
      }
    }

    @Override
    public void onEvent(SemaphoreWatch.Event event) {
      EventStream s;
      synchronized (this) {
        if (ended) {
          return;
        }
        if (stream == null) {
          if (event instanceof SemaphoreWatch.Failed failed) {
            end();
            exchange.fail(failed.error());
            return;
          }
          EventStream opened = exchange.events(config.eventKeepAlive());
          stream = opened;
          opened.onEnd(this::end);
        }
        s = stream;
      }
      send(s, event);
      if (event instanceof SemaphoreWatch.Failed) {
        s.close();
      }
    }

    private void send(EventStream s, SemaphoreWatch.Event event) {
      String kind;
      Object data;
      if (event instanceof SemaphoreWatch.Changed c) {
        kind = "changed";
        data = Views.detail(c.state());
      } else if (event instanceof SemaphoreWatch.Deleted d) {
        kind = "deleted";
        data = Views.of("name", d.name(), "revision", d.revision());
      } else if (event instanceof SemaphoreWatch.Synced y) {
        kind = "synced";
        data = Views.of("revision", y.revision());
      } else if (event instanceof SemaphoreWatch.Resynced r) {
        kind = "resync";
        data = Views.of("revision", r.revision());
      } else if (event instanceof SemaphoreWatch.Failed f) {
        kind = "failed";
        SemaforException error = f.error();
        data = Views.of("code", error.code().name(), "message", Errors.message(error));
      } else {
        return;
      }
      String json;
      try {
        json = JsonBody.MAPPER.writeValueAsString(data);
      } catch (JsonProcessingException ex) {
        throw new IllegalStateException(ex);
      }
      s.send(event.revision(), kind, json, config.writeTimeout());
    }

    /** The stream ended (or never started): the watch stops, the wait is counted no more. */
    synchronized void end() {
      if (ended) {
        return;
      }
      ended = true;
      entry.waits.decrementAndGet();
      pool.done(entry);
      SemaphoreWatch w = watch;
      if (w != null) {
        closer.execute(w::close);
      }
    }
  }
}
