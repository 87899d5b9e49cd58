package io.semafor.server;

import com.google.protobuf.UnsafeByteOperations;
import io.netty.channel.Channel;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.SnapshotChunk;
import io.semafor.replication.SnapshotFile;

/**
 * Streams a snapshot's file to a client in chunks, each written after the previous one has gone to
 * the socket, so a large state is never queued twice in memory. Stateless.
 */
final class SnapshotStream {
  private SnapshotStream() {}

  /**
   * The file bytes one {@code SnapshotChunk} carries: half the default frame limit, so a chunk with
   * its few header fields always fits a client's frame limit.
   */
  static final int CHUNK_BYTES = 512 * 1024;

  /**
   * Sends {@code image} as snapshot {@code id} on {@code c}. From any thread; a chunk that cannot
   * be written (the client went away) ends the sending.
   */
  static void send(Channel c, long id, SnapshotFile.Image image) {
    if (c.isActive()) {
      chunk(c, id, image, 0);
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // the listener handles every outcome
  private static void chunk(Channel c, long id, SnapshotFile.Image image, int offset) {
    int n = Math.min(CHUNK_BYTES, image.length() - offset);
    boolean last = offset + n == image.length();
    ServerFrame frame =
        ServerFrame.newBuilder()
            .setSnapshotChunk(
                SnapshotChunk.newBuilder()
                    .setId(id)
                    .setOffset(offset)
                    .setData(UnsafeByteOperations.unsafeWrap(image.bytes(), offset, n))
                    .setTotalBytes(image.length())
                    .setLast(last))
            .build();
    if (last) {
      c.writeAndFlush(frame, c.voidPromise());
      return;
    }
    c.writeAndFlush(frame)
        .addListener(
            written -> {
              if (written.isSuccess()) {
                chunk(c, id, image, offset + n);
              }
            });
  }
}
