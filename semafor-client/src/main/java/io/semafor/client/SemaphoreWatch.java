package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.ErrorCodes;
import io.semafor.client.internal.Hellos;
import io.semafor.client.internal.LinkConfig;
import io.semafor.client.internal.Wire;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.WatchEvent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running watch: the server pushes every change of one semaphore, or of every semaphore whose
 * name starts with a prefix (docs/protocol.md "Watches", decision 0041). Start one with {@link
 * SemaforClient#watch}, {@link SemaforClient#watchPrefix} or {@link NamedSemaphore#watch}.
 *
 * <p>What the listener is told: first each watched semaphore's state, then {@link Synced}; from
 * then on every change as it is applied, each with the revision that made it. When the connection
 * breaks, or the leader changes, the watch reconnects by itself and asks for what changed after the
 * last revision it was told: each semaphore that changed meanwhile comes once, at its latest state,
 * then {@link Synced} again. If the server no longer knows that far back, {@link Resynced} comes
 * first, then every watched state: a listener forgets the states it keeps that are not sent again.
 * Revisions never go back, and no semaphore's change at a revision is told twice.
 *
 * <p>It runs on a daemon thread of its own, over a connection of its own (so a busy stream never
 * delays the session's keep-alives), and calls the listener on that thread, one event at a time; a
 * slow listener slows only its watch (the server then coalesces, as after a reconnect). It stops at
 * {@link #close}, or when the server refuses it ({@link Failed}, always the last event). Its
 * methods are thread-safe.
 */
public final class SemaphoreWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SemaphoreWatch.class);

  /** What a watch tells, each event with the revision it reflects. */
  public sealed interface Event permits Changed, Deleted, Synced, Resynced, Failed {
    /** The revision the event reflects. */
    long revision();
  }

  /**
   * A semaphore's state right after the command at {@code revision} changed it; while catching up
   * (before {@link Synced}), its latest state, {@code revision} being its last change. A summary
   * watch's states have no lists.
   */
  public record Changed(long revision, SemaphoreInfo state) implements Event {}

  /** The semaphore {@code name} no longer exists (deleted at {@code revision}, or by then). */
  public record Deleted(long revision, String name) implements Event {}

  /** Everything up to {@code revision} has been told; live changes follow. */
  public record Synced(long revision) implements Event {}

  /**
   * The states kept from before are to be forgotten: every watched semaphore's state follows, then
   * {@link Synced}.
   */
  public record Resynced(long revision) implements Event {}

  /** The server refused the watch (a bad argument, a permission); nothing follows. */
  public record Failed(long revision, SemaforException error) implements Event {}

  /** Receives a watch's events, one at a time, on the watch's thread. */
  @FunctionalInterface
  public interface Listener {
    /** Takes one event; an exception it throws is logged and the watch goes on. */
    void onEvent(Event event);
  }

  /**
   * How long a connection may stay silent before it is taken for dead and replaced: three of the
   * server's 30 s heartbeats (a {@code SYNCED} to every quiet watch).
   */
  static final Duration SILENCE = Duration.ofSeconds(90);

  /** The longest pause between two tries to reconnect. */
  private static final long MAX_BACKOFF_MILLIS = 2_000;

  private final LinkConfig config;
  private final String name;
  private final boolean prefix;
  private final int limit;
  private final boolean summary;
  private final Listener listener;
  private final Thread thread;
  private final CountDownLatch firstSync = new CountDownLatch(1);

  private volatile boolean closed;
  private volatile @Nullable Wire wire;

  /** The revision of the last SYNCED: where a reconnect resumes at the latest (0: never synced). */
  private long synced;

  /** The last revision told, and the names told at it (a reconnect may send them again). */
  private volatile long lastRevision;

  private final Set<String> toldAtLast = new HashSet<>();

  /** Receiving every state (a start, or after RESYNC) and not synced since. */
  private boolean full = true;

  private @Nullable InetSocketAddress leader;

  SemaphoreWatch(
      LinkConfig config,
      String name,
      boolean prefix,
      int limit,
      boolean summary,
      Listener listener) {
    this.config = config;
    this.name = name;
    this.prefix = prefix;
    this.limit = limit;
    this.summary = summary;
    this.listener = listener;
    this.thread = new Thread(this::run, "semafor-watch-" + name);
    thread.setDaemon(true);
  }

  /**
   * Makes the first subscription a resume after {@code revision} (0: a fresh start), as after a
   * reconnect; before {@link #start}. Returns the watch.
   */
  SemaphoreWatch resumingAfter(long revision) {
    if (revision > 0) {
      synced = revision;
      lastRevision = revision;
      full = false;
    }
    return this;
  }

  /** Starts the watch's thread; returns the watch. */
  SemaphoreWatch start() {
    thread.start();
    return this;
  }

  /**
   * Blocks until the watch is first {@link Synced} (its listener has been told every watched
   * state), at most {@code timeout}; returns whether it was. Thread-safe.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    return firstSync.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The last revision the listener was told (0 before the first event). Thread-safe. */
  public long lastRevision() {
    return lastRevision;
  }

  /**
   * Stops the watch: its connection is closed and its thread ends; the listener is called no more
   * once this returns, unless called from the listener itself. Idempotent; thread-safe.
   */
  @Override
  public void close() {
    closed = true;
    Wire w = wire;
    if (w != null) {
      w.close();
    }
    thread.interrupt();
    if (Thread.currentThread() != thread) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    long backoff = 50;
    int next = 0;
    while (!closed) {
      InetSocketAddress target = leader;
      if (target == null) {
        target = config.addresses().get(next++ % config.addresses().size());
      }
      leader = null;
      try {
        if (follow(target)) {
          return; // refused: told the listener
        }
        backoff = 50;
      } catch (IOException | RuntimeException e) {
        if (closed) {
          return;
        }
        log.debug("watch of {} through {}: {}; reconnecting", name, target, e.toString());
      }
      if (leader == null) {
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException e) {
          return;
        }
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }

  /**
   * One connection: subscribes and tells the listener what comes, until the connection ends (an
   * IOException, or false after a NOT_LEADER that named the leader) or the server refuses the watch
   * (true).
   */
  private boolean follow(InetSocketAddress target) throws IOException {
    try (Wire w =
        Wire.connect(target, config.connectTimeout(), config.tls(), config.verifyHostname())) {
      w.connected();
      w.readTimeout(SILENCE);
      wire = w;
      if (closed) {
        return true;
      }
      if (!config.token().isEmpty()) {
        w.write(Frames.encode(Hellos.authenticateOnly(config))); // nothing to keep alive
      }
      boolean resume = !full && synced > 0;
      long after = resume ? Math.max(synced, lastRevision - 1) : 0;
      if (!resume && lastRevision > 0) {
        full = true;
        deliver(new Resynced(lastRevision), ""); // what is sent now replaces what was
      }
      w.write(
          Frames.encode(
              ClientFrame.newBuilder()
                  .setWatch(
                      Watch.newBuilder()
                          .setId(1)
                          .setName(ByteString.copyFrom(name, StandardCharsets.UTF_8))
                          .setPrefix(prefix)
                          .setAfterRevision(after)
                          .setLimit(limit)
                          .setSummary(summary))
                  .build()));
      while (!closed) {
        ServerFrame frame = w.read();
        if (frame.hasFatal()) {
          Failure f = frame.getFatal().getFailure();
          if (f.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
            leader = leaderOrNull(f.getLeader());
            return false;
          }
          throw new IOException(target + " closed the connection: " + f.getMessage());
        }
        if (frame.hasWelcome() && frame.getWelcome().hasFailure()) {
          Failure f = frame.getWelcome().getFailure();
          if (f.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
            leader = leaderOrNull(f.getLeader());
            return false;
          }
          deliver(new Failed(lastRevision, ErrorCodes.exception(f)), "");
          return true;
        }
        if (frame.hasWatchEvent() && handle(frame.getWatchEvent())) {
          return true;
        }
      }
      return true;
    } finally {
      wire = null;
    }
  }

  /** Tells the listener one event; returns whether the watch ended. */
  private boolean handle(WatchEvent e) {
    long revision = e.getRevision();
    String eventName = e.getName().toString(StandardCharsets.UTF_8);
    switch (e.getKind()) {
      case CHANGED -> {
        if (!full && revision == lastRevision && toldAtLast.contains(eventName)) {
          return false; // told before the reconnect
        }
        SemaphoreInfo state =
            e.hasDetail()
                ? Infos.detail(e.getDetail(), revision)
                : Infos.status(e.getStatus(), revision);
        deliver(new Changed(revision, state), eventName);
      }
      case DELETED -> {
        if (!full && revision == lastRevision && toldAtLast.contains(eventName)) {
          return false;
        }
        deliver(new Deleted(revision, eventName), eventName);
      }
      case RESYNC -> {
        full = true;
        deliver(new Resynced(revision), "");
      }
      case SYNCED -> {
        full = false;
        synced = revision;
        deliver(new Synced(revision), "");
        firstSync.countDown();
      }
      case FAILED -> {
        deliver(new Failed(lastRevision, ErrorCodes.exception(e.getFailure())), "");
        return true;
      }
      default -> log.debug("ignoring a watch event of kind {}", e.getKind());
    }
    return false;
  }

  private void deliver(Event event, String eventName) {
    if (event.revision() != lastRevision || event instanceof Resynced || full) {
      // only the names of the last revision of live or caught-up events can come again; while
      // every state is being sent (full), none is skipped, so none need be remembered
      toldAtLast.clear();
    }
    lastRevision = Math.max(lastRevision, event.revision());
    if (!eventName.isEmpty()) {
      toldAtLast.add(eventName);
    }
    try {
      listener.onEvent(event);
    } catch (RuntimeException ex) {
      log.warn("the listener of the watch of {} failed on {}", name, event, ex);
    }
  }

  private static @Nullable InetSocketAddress leaderOrNull(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      return null;
    }
    try {
      return InetSocketAddress.createUnresolved(
          hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
