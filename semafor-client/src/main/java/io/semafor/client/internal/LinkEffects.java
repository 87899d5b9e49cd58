package io.semafor.client.internal;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.client.internal.session.SessionEffect;
import io.semafor.client.internal.session.SessionError;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ServerFrame;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link Link} does for each effect of its session machine — writes a frame, dials, hangs
 * up, completes or fails a call, reports a session opened or lost — and why a first connection
 * failed. A part of the link, kept apart for its size: every method runs under the link's lock, and
 * what completes a caller's future is queued to run once it is released.
 */
final class LinkEffects {
  private static final Logger log = LoggerFactory.getLogger(Link.class);

  private final Link link;

  LinkEffects(Link link) {
    this.link = link;
  }

  /** Waits for the first session; returns why there is none, or null once there is. */
  @Nullable SemaforException awaitOpened(long deadline) {
    link.lock.lock();
    try {
      while (true) {
        if (link.opened) {
          return null;
        }
        if (link.refusal != null) {
          return link.refusal;
        }
        Exception last = link.lastFailure;
        boolean noneAnswered =
            !link.anyConnected && link.dialsFailed >= link.config.addresses().size();
        if (noneAnswered || System.nanoTime() - deadline >= 0 || link.closed) {
          if (last instanceof NotLeader) { // members answered, but no leader was found in time
            return new SemaforException(
                ErrorCode.NOT_LEADER, String.valueOf(last.getMessage()), last);
          }
          String why = last == null ? "no answer in time" : String.valueOf(last.getMessage());
          return new SemaforException(
              ErrorCode.UNAVAILABLE, "cannot reach " + link.config.addresses() + ": " + why, last);
        }
        try {
          link.changed.awaitNanos(deadline - System.nanoTime());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return new SemaforException(ErrorCode.UNAVAILABLE, "interrupted while connecting", e);
        }
      }
    } finally {
      link.lock.unlock();
    }
  }

  void noteRefusedHello(io.semafor.protocol.v1.Failure f) {
    if (link.opened) {
      return;
    }
    if (f.getCode() == io.semafor.protocol.v1.ErrorCode.NOT_LEADER) {
      link.lastFailure = new NotLeader(f.getMessage(), f.getLeader());
    } else {
      link.lastFailure = new IOException("refused: " + f.getMessage());
    }
  }

  void apply(SessionEffect e) {
    if (e instanceof SessionEffect.Send s) {
      Wire w = link.wire;
      if (w != null) {
        try {
          w.write(Frames.encode(s.frame()));
        } catch (IOException failed) {
          brokenLocked(w, failed);
        }
      }
    } else if (e instanceof SessionEffect.Completed c) {
      completed(c);
    } else if (e instanceof SessionEffect.Failed f) {
      Call call = link.requests.remove(f.requestId());
      if (call != null) {
        SemaforException failure = exception(f.error());
        link.after.get().add(() -> link.reading.fail(call, failure));
      }
    } else if (e instanceof SessionEffect.ReadCompleted r) {
      Call call = link.reads.remove(r.readId());
      if (call != null) {
        link.after.get().add(() -> link.reading.finish(call, r.response()));
      }
    } else if (e instanceof SessionEffect.ReadFailed r) {
      Call call = link.reads.remove(r.readId());
      if (call != null) {
        SemaforException failure = exception(r.error());
        link.after.get().add(() -> link.reading.fail(call, failure));
      }
    } else if (e instanceof SessionEffect.Dial d) {
      dial(d);
    } else if (e instanceof SessionEffect.Hangup h) {
      Wire w = link.wire;
      if (w != null && h.conn() == link.wireConn) {
        link.wire = null;
        w.close();
        if (!link.closed && !h.reason().equals("closed")) {
          log.info("left {}: {}", w.address(), h.reason());
        }
      }
    } else if (e instanceof SessionEffect.Opened o) {
      onOpened(o);
    } else if (e instanceof SessionEffect.HelloRefused r) {
      if (!link.opened) {
        link.refusal = exception(r.error()); // open() throws it: the caller reports it
      } else {
        log.warn("the server refused the session: {} {}", r.error().code(), r.error().message());
      }
    } else if (e instanceof SessionEffect.SessionLost l) {
      onSessionLost(l);
    } else if (e instanceof SessionEffect.AcknowledgementsConfirmed c) {
      CompletableFuture<Void> f = link.confirmations.remove(c.token());
      if (f != null) {
        link.after.get().add(() -> f.complete(null));
      }
    } else if (e instanceof SessionEffect.Closed) {
      link.finished = true;
    }
    // watch events: a Java client's watches have connections of their own (SemaphoreWatch)
  }

  void completed(SessionEffect.Completed c) {
    Call call = link.requests.remove(c.requestId());
    if (call == null) {
      return;
    }
    if (call.claim != null && !call.claim.answered(c.response())) {
      // the client closed before this answer came: left unacknowledged, its grant goes back
      // with the session
      link.machine.leaveUnacknowledged(c.response().getId(), System.nanoTime());
    }
    link.after.get().add(() -> link.reading.finish(call, c.response()));
  }

  void onOpened(SessionEffect.Opened o) {
    Wire w = link.wire;
    if (w != null) {
      w.connected(); // the handshake is done: its watchdog stands down
    }
    boolean first = !link.opened;
    link.opened = true;
    link.attached = true;
    link.lastFailure = null;
    link.sessionId = o.sessionId();
    link.sessionTtlNanos = o.ttlNanos();
    if (!first) {
      log.info(
          "{} {} (session {})",
          o.resumed() ? "resumed at" : "opened a new session at",
          w != null ? w.address() : link.machine.address(),
          o.sessionId());
    }
    link.after.get().add(link.reading::connectionChanged);
  }

  void onSessionLost(SessionEffect.SessionLost l) {
    long old = link.sessionId;
    link.sessionsLost
        .incrementAndGet(); // before the waiters fail: one added meanwhile sees it moved
    link.sessionId = 0;
    log.warn("session {} has ended ({}); opening a new session", old, l.error().message());
    SemaforException e =
        new SemaforException(
            ErrorCode.SESSION_EXPIRED,
            "session "
                + old
                + " ended: the server heard nothing from this client for its TTL; what it held"
                + " went back");
    List<CompletableFuture<Void>> waiting = new ArrayList<>(link.confirmations.values());
    link.confirmations.clear();
    link.after
        .get()
        .add(
            () -> {
              waiting.forEach(f -> f.completeExceptionally(e));
              for (Runnable listener : link.sessionLostListeners) {
                try {
                  listener.run();
                } catch (RuntimeException failed) {
                  log.warn("a session-lost listener failed", failed);
                }
              }
            });
  }

  static SemaforException exception(SessionError error) {
    String message = error.message();
    if (!error.outcomeKnown() && !message.contains("outcome")) {
      message += "; the outcome is unknown";
    }
    return new SemaforException(error.code(), message);
  }

  /** Dials {@code d}'s address on the dial pool; the machine hears how it went. Lock held. */
  void dial(SessionEffect.Dial d) {
    Wire old = link.wire;
    if (old != null) {
      link.wire = null;
      old.close();
    }
    InetSocketAddress address = addressOf(d.address());
    if (address == null) {
      link.machine.disconnected(System.nanoTime(), d.conn());
      return;
    }
    // with other addresses to try, connecting to this one is bounded short (a frozen server
    // accepts TCP but never completes TLS); with one, there is nothing better to do than wait
    Duration timeout =
        link.config.addresses().size() > 1
                && link.config.connectTimeout().compareTo(Link.DIAL_DEADLINE) > 0
            ? Link.DIAL_DEADLINE
            : link.config.connectTimeout();
    try {
      link.dialing.execute(() -> connect(d.conn(), address, timeout));
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      // the link is stopping
    }
  }

  @Nullable InetSocketAddress addressOf(String text) {
    InetSocketAddress known = link.addresses.get(text);
    return known != null ? known : new NotLeader("", text).leaderAddress();
  }

  void connect(long conn, InetSocketAddress address, Duration timeout) {
    Wire w;
    try {
      // the watchdog closes the socket if no Welcome came by then (Opened calls connected())
      w =
          Wire.connect(
              address,
              timeout.plus(Duration.ofSeconds(1)),
              link.config.tls(),
              link.config.verifyHostname());
    } catch (IOException | RuntimeException e) {
      link.lock.lock();
      try {
        link.dialsFailed++;
        if (!link.opened) {
          link.lastFailure = e;
        }
        log.debug("cannot connect to {}: {}", address, e.getMessage());
        link.machine.disconnected(System.nanoTime(), conn);
        link.runEffects();
      } finally {
        link.unlock();
      }
      return;
    }
    link.lock.lock();
    try {
      if (link.closed || link.machine.conn() != conn) {
        w.close();
        return;
      }
      link.anyConnected = true;
      link.attached = false;
      link.wire = w;
      link.wireConn = conn;
      link.lastFrame = System.nanoTime();
      link.machine.connected(System.nanoTime(), conn);
      link.runEffects();
    } finally {
      link.unlock();
    }
    link.reading.connectionChanged();
  }

  /** A frame read from connection {@code conn}. */
  void received(ServerFrame frame, long conn) {
    long now = System.nanoTime();
    link.lastFrame = now;
    link.lock.lock();
    try {
      if (frame.hasWelcome() && frame.getWelcome().hasFailure()) {
        noteRefusedHello(frame.getWelcome().getFailure());
      }
      link.machine.received(frame, now, conn);
      link.runEffects();
    } finally {
      link.unlock();
    }
  }

  /** Connection {@code w} failed while being read or written. */
  void broken(Wire w, IOException cause) {
    link.lock.lock();
    try {
      brokenLocked(w, cause);
    } finally {
      link.unlock();
    }
  }

  void brokenLocked(Wire w, IOException cause) {
    if (link.wire != w) {
      return;
    }
    link.wire = null;
    w.close();
    if (!link.opened) {
      link.lastFailure = cause;
    }
    if (!link.closed) {
      log.info("lost the connection to {} ({}); reconnecting", w.address(), cause.getMessage());
    }
    link.machine.disconnected(System.nanoTime(), link.wireConn);
    link.runEffects();
  }
}
