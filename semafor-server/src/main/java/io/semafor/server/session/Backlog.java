package io.semafor.server.session;

import io.semafor.protocol.v1.ClientFrame;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * The frames a connection read but does not handle yet, and the reads it has being answered.
 *
 * <p>A read's answer can be half a frame (a page of names or of a queue) for a request of a few
 * bytes: without a bound, the few thousand reads one network read can carry would be answered with
 * gigabytes before the connection's queue could push back. So at most {@link #MAX_READS_IN_FLIGHT}
 * reads (snapshots and watch starts count as reads) are answered at once, and a frame that would
 * pass it, or any frame while the client does not read its replies, is parked in order; while any
 * is parked the connection is not read from, so what is parked is at most what one network read
 * brought.
 *
 * <p>Not thread-safe: part of a {@link ServerSession}.
 */
final class Backlog {
  /** The most reads (and snapshots, and watch starts) of one connection answered at once. */
  static final int MAX_READS_IN_FLIGHT = 16;

  private final ArrayDeque<ClientFrame> parked = new ArrayDeque<>();
  private int readsInFlight;
  private boolean writable = true;

  /** Whether {@code frame} must be parked: others are, or it must wait itself. */
  boolean mustPark(ClientFrame frame) {
    return !parked.isEmpty() || mustWait(frame);
  }

  private boolean mustWait(ClientFrame frame) {
    if (!writable) {
      return true;
    }
    return switch (frame.getBodyCase()) {
      case READ, SNAPSHOT, WATCH -> readsInFlight >= MAX_READS_IN_FLIGHT;
      default -> false;
    };
  }

  void park(ClientFrame frame) {
    parked.addLast(frame);
  }

  /** The oldest parked frame if it may be handled now (taken out); null if none may. */
  @Nullable ClientFrame nextReady() {
    ClientFrame next = parked.peekFirst();
    if (next == null || mustWait(next)) {
      return null;
    }
    return parked.pollFirst();
  }

  /** Whether the connection should be read from: nothing parked, and its replies are read. */
  boolean reading() {
    return parked.isEmpty() && writable;
  }

  void writable(boolean value) {
    writable = value;
  }

  void readStarted() {
    readsInFlight++;
  }

  void readEnded() {
    if (readsInFlight > 0) {
      readsInFlight--;
    }
  }

  int readsInFlight() {
    return readsInFlight;
  }

  int parked() {
    return parked.size();
  }
}
