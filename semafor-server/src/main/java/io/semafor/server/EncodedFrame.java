package io.semafor.server;

/**
 * A server frame's protobuf bytes, encoded ahead (without the length prefix, which the channel's
 * encoder writes): a watch event's state is encoded once and copied into the frame of every watch
 * told it, instead of being serialised again for each (decision 0041: 100 watchers of a busy
 * semaphore spent most of the server's time serialising the same state). Immutable.
 */
final class EncodedFrame {
  private final byte[] body;

  /** A frame of {@code body}, which is not copied and must not change after. */
  EncodedFrame(byte[] body) {
    this.body = body;
  }

  /** The frame's bytes: not to be changed. */
  byte[] body() {
    return body;
  }
}
