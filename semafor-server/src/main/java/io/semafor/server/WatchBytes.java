package io.semafor.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.wire.ChangedFrame;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One connection's watch events of one batch, framed into one buffer as they are told, which the
 * batch's end writes to the channel in one go: one pipeline write, one outbound entry and one copy
 * of each state per event, instead of a message, an encoder pass and an outbound entry each (issue
 * 33: 20 watchers that keep up with a busy semaphore are owed 40 events per W2 pair).
 *
 * <p>Filled on the applying thread, then handed to the channel's loop with the batch (the loop's
 * task queue orders the two); not thread-safe. The buffer is released by the channel once written,
 * or by {@link Outbox} if it is not.
 */
final class WatchBytes {
  /** Room for a few summary events, or one small detail; grown as needed. */
  private static final int INITIAL_BYTES = 1024;

  private final ByteBuf buffer;

  WatchBytes(ByteBufAllocator allocator) {
    this.buffer = allocator.directBuffer(INITIAL_BYTES);
  }

  /** Appends {@code frame}; returns the bytes it took on the wire. */
  int append(ServerFrame frame) {
    try {
      return FrameCodec.write(frame, buffer);
    } catch (IOException e) {
      throw new UncheckedIOException("a watch event did not fit the bytes counted for it", e);
    }
  }

  /**
   * Appends {@code frame}, made once for every watch told it, for watch {@code id} at {@code
   * revision}.
   */
  int append(ChangedFrame frame, long id, long revision) {
    try {
      return FrameCodec.write(frame, id, revision, buffer);
    } catch (IOException e) {
      throw new UncheckedIOException("a watch event did not fit the bytes counted for it", e);
    }
  }

  /** The frames so far; handed to the channel, which releases it once written. */
  ByteBuf buffer() {
    return buffer;
  }
}
