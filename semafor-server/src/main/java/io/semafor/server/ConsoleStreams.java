package io.semafor.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.core.Name;
import io.semafor.server.http.EventStream;
import io.semafor.server.http.Exchange;
import io.semafor.server.security.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The console's live view: a Server-Sent Events stream per open page (decision 0042). A stream
 * shows one page of the list and, if one is selected, one semaphore; it reads them again when the
 * {@link ConsoleFeed} says one of them changed, at most {@link #MOST_OFTEN} apart, and sends what
 * differs from what it sent last. This node's replication and the sessions are read every {@link
 * #NODE_EVERY}. A comment line every {@link #KEEP_ALIVE} tells a closed page from a quiet one: the
 * write after its connection closed fails, and its slot is free within about two seconds. A page
 * whose reader vanished without closing (its machine gone, its socket never read) is let go of by
 * the admin port's write timeout once the buffers between are full ({@link
 * AdminServer#WRITE_TIMEOUT}, decision 0055). At most {@link #MAX_STREAMS} streams run at once,
 * each on a thread of its own, shared as {@link StreamSlots} says (decision 0047); one more is
 * answered 503. Thread-safe.
 */
final class ConsoleStreams implements AutoCloseable {
  static final int MAX_STREAMS = 16;

  /** The shortest time between two reads of the same view: a busy semaphore is shown 10 times/s. */
  static final Duration MOST_OFTEN = Duration.ofMillis(100);

  static final Duration NODE_EVERY = Duration.ofSeconds(1);

  /**
   * How often a comment line is written: short, because a write is how a stream learns that its
   * page went away when no close reached it, and a dead page's slot must come back before it is
   * missed (issue 31: still BUSY 18 s after 16 clients died).
   */
  static final Duration KEEP_ALIVE = Duration.ofSeconds(1);

  /** A stream ends after this long; the page opens a new one at once (bounds a forgotten tab). */
  static final Duration LIFETIME = Duration.ofMinutes(10);

  /**
   * Streams a principal with the {@code cluster} permission may hold open at once (an open server's
   * anonymous, one principal, has it).
   */
  static final int PER_OPERATOR = 8;

  /** Streams a principal without {@code cluster} may hold open at once. */
  static final int PER_PRINCIPAL = 4;

  /** Streams kept for principals with {@code cluster}: the others share the rest. */
  static final int RESERVED_FOR_OPERATORS = 4;

  /**
   * What a stream asks again every second of its principal, as a connection does at each request:
   * whether its credentials still admit it, and whether it may see the node.
   */
  interface Access {
    /** Why the credentials no longer admit the principal (revoked, expired); null if they do. */
    @Nullable String revoked();

    /** Why the principal may not see the node and every session now; null if it may. */
    @Nullable String nodeDenied();
  }

  private final StreamSlots slots =
      new StreamSlots(MAX_STREAMS, PER_OPERATOR, PER_PRINCIPAL, RESERVED_FOR_OPERATORS);

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What a stream shows: a page of names under {@code prefix} after {@code after}, and {@code
   * name}.
   */
  record View(Name prefix, @Nullable Name after, int limit, @Nullable Name name) {}

  private final ThreadPoolExecutor threads =
      new ThreadPoolExecutor(
          0,
          // slots bound the streams; the spare threads let a stream start while one that gave its
          // slot back is still finishing
          MAX_STREAMS + RESERVED_FOR_OPERATORS,
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          r -> {
            Thread t = new Thread(r, "semafor-console-stream");
            t.setDaemon(true);
            return t;
          });

  private final ConsoleViews views;
  private final ConsoleFeed feed;

  ConsoleStreams(ConsoleViews views, ConsoleFeed feed) {
    this.views = views;
    this.feed = feed;
  }

  /**
   * Starts streaming {@code view} to {@code exchange} for {@code who}, asking {@code access} again
   * every second. Returns at once: null if it streams, else why not ({@link StreamSlots}; the
   * caller answers 503 BUSY with it).
   */
  @Nullable String open(Exchange exchange, Principal who, View view, Access access) {
    String key = who.name();
    String busy = slots.take(key, access.nodeDenied() == null);
    if (busy != null) {
      return busy;
    }
    try {
      threads.execute(
          () -> {
            try {
              stream(exchange, who, view, access);
            } finally {
              slots.give(key);
            }
          });
      return null;
    } catch (RejectedExecutionException full) {
      slots.give(key);
      return "the console's stream threads are all busy; try again";
    }
  }

  int open() {
    return slots.open();
  }

  private void stream(Exchange exchange, Principal who, View view, Access access) {
    Semaphore wake = new Semaphore(0);
    ConsoleFeed.Listener listener =
        new ConsoleFeed.Listener() {
          @Override
          public boolean shows(Name changed) {
            Name selected = view.name();
            return changed.startsWith(view.prefix())
                || (selected != null && changed.equals(selected));
          }

          @Override
          public void poke() {
            if (wake.availablePermits() == 0) {
              wake.release();
            }
          }
        };
    feed.add(listener);
    Map<String, String> sent = new HashMap<>();
    EventStream out = exchange.events(KEEP_ALIVE, Map.of("Cache-Control", "no-store"));
    out.onEnd(listener::poke); // a stream that ended wakes at once and gives its slot back
    try {
      boolean readStates = true;
      long nodeReadAt = 0;
      long openedAt = System.nanoTime();
      while (!Thread.currentThread().isInterrupted()
          && !out.ended()
          && System.nanoTime() - openedAt < LIFETIME.toNanos()) {
        StringBuilder events = new StringBuilder();
        if (readStates) {
          section(
              events,
              sent,
              "list",
              () -> views.page(who, view.prefix(), view.after(), view.limit()));
          Name name = view.name();
          if (name != null) {
            section(events, sent, "semaphore", () -> views.semaphore(who, name));
          }
        }
        if (System.nanoTime() - nodeReadAt >= NODE_EVERY.toNanos()) {
          nodeReadAt = System.nanoTime();
          String revoked = access.revoked();
          if (revoked != null) {
            // as a connection whose token is revoked or expired is closed: say why, and end
            out.sendRaw(
                "event: problem\ndata: " + problem("stream", "UNAUTHENTICATED", revoked) + "\n\n",
                AdminServer.WRITE_TIMEOUT);
            return;
          }
          String nodeDenied = access.nodeDenied();
          if (nodeDenied == null) {
            section(events, sent, "node", views::node);
          } else {
            section(events, sent, "node", () -> Map.of("denied", nodeDenied));
          }
          section(events, sent, "sessions", () -> views.sessions(who));
        }
        if (events.length() > 0) {
          // waits while the reader is behind, up to the write timeout, then ends the stream
          out.sendRaw(events.toString(), AdminServer.WRITE_TIMEOUT);
        }
        readStates = wake.tryAcquire(NODE_EVERY.toNanos(), TimeUnit.NANOSECONDS);
        if (readStates) {
          Thread.sleep(MOST_OFTEN.toMillis()); // changes meanwhile are shown by the next read
          wake.drainPermits();
        }
      }
    } catch (IOException e) {
      // a problem event that cannot be written: the stream ends
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } finally {
      feed.remove(listener);
      out.close();
    }
  }

  /** A view read for one section: throws when it cannot be read now. */
  @FunctionalInterface
  private interface Reading {
    Map<String, Object> read()
        throws ConsoleViews.Unavailable,
            ConsoleViews.Denied,
            ConsoleViews.NotLeader,
            InterruptedException;
  }

  /** The data of a {@code problem} event: which view, its stable code, what to tell the user. */
  private static String problem(String view, String code, String message) throws IOException {
    return JSON.writeValueAsString(Map.of("view", view, "code", code, "message", message));
  }

  /**
   * Adds the event {@code kind} (or a {@code problem} about it) to {@code events} if it differs
   * from what was last sent for {@code kind}.
   */
  private static void section(
      StringBuilder events, Map<String, String> sent, String kind, Reading reading)
      throws InterruptedException, IOException {
    String data;
    String event = kind;
    try {
      data = JSON.writeValueAsString(reading.read());
    } catch (ConsoleViews.Unavailable e) {
      event = "problem";
      data = problem(kind, "UNAVAILABLE", String.valueOf(e.getMessage()));
    } catch (ConsoleViews.NotLeader e) {
      event = "problem";
      data = problem(kind, "NOT_LEADER", String.valueOf(e.getMessage()));
    } catch (ConsoleViews.Denied e) {
      event = "problem";
      data = problem(kind, "PERMISSION_DENIED", String.valueOf(e.getMessage()));
    }
    String shown = event + "\n" + data;
    if (shown.equals(sent.get(kind))) {
      return;
    }
    sent.put(kind, shown);
    events
        .append("event: ")
        .append(event)
        .append('\n')
        .append("data: ")
        .append(data)
        .append("\n\n");
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
