package io.semafor.client.internal.session;

/** Where a {@link ClientSession}'s connection stands. */
public enum Phase {
  /** No connection and none wanted (nothing to serve yet, or the session ended with nothing). */
  IDLE,
  /** A {@link SessionEffect.Dial} is out; waiting for {@code connected} or {@code disconnected}. */
  DIALING,
  /** Connected; the {@code Hello} is out, its {@code Welcome} awaited. */
  HELLO,
  /** A session is attached: requests, reads and watches flow. */
  READY,
  /** Every address failed in turn: waiting before the next round. */
  BACKOFF,
  /** Closed for good. */
  CLOSED
}
