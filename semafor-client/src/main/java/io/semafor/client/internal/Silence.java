package io.semafor.client.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The rule for a server that stops answering (protocol.md §2, "A silent server"), as the Java
 * client keeps it: a frozen leader (SIGSTOP, a long GC pause, a stalled VM) holds its connections
 * open, so a client waiting for an answer would wait as long as the freeze lasts. While anything
 * waits and nothing came for {@link #PROBE_AFTER}, a probe goes out (a plain keep-alive, which a
 * live server answers at once even while a commit stalls); no frame within {@link #ANSWER_DEADLINE}
 * of it and the connection is left; its address is then dialled last, and not followed from a
 * {@code NOT_LEADER}, for {@link #AVOID_SILENT}.
 *
 * <p>Pure: times are {@link System#nanoTime} values passed in, so the rule is tested with a fake
 * clock. {@link #tick} and {@link #left} on the io thread only; {@link #order} and {@link #avoided}
 * from any thread.
 */
final class Silence {
  /** Nothing heard for this long while something waits: a probe goes out. */
  static final long PROBE_AFTER = TimeUnit.MILLISECONDS.toNanos(250);

  /** A probe unanswered for this long: the server stopped answering. */
  static final long ANSWER_DEADLINE = TimeUnit.MILLISECONDS.toNanos(750);

  /** How long an address left for silence is dialled last and not followed. */
  static final long AVOID_SILENT = TimeUnit.SECONDS.toNanos(3);

  /** What the io thread is to do now. */
  enum Action {
    /** Nothing. */
    NONE,
    /** Send a plain keep-alive. */
    PROBE,
    /** Leave the connection: the server is silent. */
    LEAVE
  }

  /** When the unanswered probe went out; 0 if none. */
  private long probeSentAt;

  private final ConcurrentHashMap<String, Long> avoidedUntil = new ConcurrentHashMap<>();

  /**
   * What to do at {@code now}, the last frame having come at {@code lastFrame}, with {@code
   * waiting} whether any request, read or keep-alive waits for the server.
   */
  Action tick(long now, long lastFrame, boolean waiting) {
    if (probeSentAt != 0) {
      if (lastFrame - probeSentAt >= 0) {
        probeSentAt = 0; // answered, or anything else came: the server is there
      } else if (now - probeSentAt >= ANSWER_DEADLINE) {
        probeSentAt = 0;
        return Action.LEAVE;
      } else {
        return Action.NONE;
      }
    }
    if (waiting && now - lastFrame >= PROBE_AFTER) {
      probeSentAt = now;
      return Action.PROBE;
    }
    return Action.NONE;
  }

  /** The connection to {@code address} was left at {@code now} for its silence. */
  void left(InetSocketAddress address, long now) {
    avoidedUntil.put(key(address), now + AVOID_SILENT);
  }

  /** Whether {@code address} went silent less than {@link #AVOID_SILENT} before {@code now}. */
  boolean avoided(InetSocketAddress address, long now) {
    Long until = avoidedUntil.get(key(address));
    return until != null && until - now > 0;
  }

  /**
   * The order to dial in: {@code hint} (a leader a member named) unless avoided, then {@code
   * rotation} without the avoided addresses, or with them if nothing else is left.
   */
  List<InetSocketAddress> order(
      @Nullable InetSocketAddress hint, List<InetSocketAddress> rotation, long now) {
    List<InetSocketAddress> order = new ArrayList<>();
    if (hint != null && !avoided(hint, now)) {
      order.add(hint);
    }
    List<InetSocketAddress> silent = new ArrayList<>();
    for (InetSocketAddress a : rotation) {
      (avoided(a, now) ? silent : order).add(a);
    }
    if (order.isEmpty()) {
      order.addAll(silent); // nothing else to try: a silent address may be back
    }
    return order;
  }

  private static String key(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }
}
