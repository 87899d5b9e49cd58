package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.semafor.ClientInfo;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.watch.WatchEvent;
import io.semafor.server.wire.ChangedFrame;
import io.semafor.server.wire.WireResults;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A watch event encoded by hand around a state encoded once ({@link ChangedFrame}) is the very
 * frame the generated code writes, and a connection's events framed into one buffer ({@link
 * WatchBytes}) are the frames a client reads one by one: clients cannot tell them apart.
 */
class WatchFramesTest {
  private static final long LOG_TIME = 5_000_000_000L;

  private static Result.SemaphoreStatus status(String name) {
    return new Result.SemaphoreStatus(
        Name.of(name), 3, SemaphoreOptions.withCapacity(8), 1, 1, 0, 2, 0, 0);
  }

  private static Result.SemaphoreDetail detail(String name) {
    return new Result.SemaphoreDetail(
        status(name),
        List.of(
            new Result.WaiterView(
                7, 9, 11, "acquire", 2, 9_000_000_000L, new ClientInfo("app", "host", 42))),
        List.of(new Result.HolderView(8, 2, List.of(1L, 2L), new ClientInfo("é", "h", 1))),
        List.of(),
        new Query.Position(11, 8, 0),
        false,
        false,
        false);
  }

  /** The frames in {@code bytes}, each read as a client reads it: its length, then its bytes. */
  private static List<byte[]> frames(WatchBytes bytes) {
    ByteBuf buffer = bytes.buffer();
    List<byte[]> frames = new ArrayList<>();
    while (buffer.isReadable()) {
      byte[] frame = new byte[buffer.readInt()];
      buffer.readBytes(frame);
      frames.add(frame);
    }
    buffer.release();
    return frames;
  }

  private static byte[] generated(WatchEvent event) {
    return ServerFrame.newBuilder()
        .setWatchEvent(WireResults.watchEvent(event, LOG_TIME))
        .build()
        .toByteArray();
  }

  private static void assertSameFrame(long id, long revision, String name, Result state)
      throws Exception {
    WatchEvent.Changed event = new WatchEvent.Changed(id, revision, Name.of(name), state);
    WatchBytes bytes = new WatchBytes(UnpooledByteBufAllocator.DEFAULT);
    ChangedFrame frame =
        ChangedFrame.of(Name.of(name), state, WireResults.watchedState(state, LOG_TIME));

    int taken = bytes.append(frame, id, revision);
    List<byte[]> read = frames(bytes);

    assertThat(read).hasSize(1);
    assertThat(read.get(0)).isEqualTo(generated(event));
    assertThat(taken).isEqualTo(Frames.PREFIX_BYTES + read.get(0).length);
    assertThat(ServerFrame.parseFrom(read.get(0)).getWatchEvent().getName().toStringUtf8())
        .isEqualTo(name);
  }

  @Test
  void oneChangedStateIsWrittenForEachWatchUnderItsOwnIdAndRevision() {
    ChangedFrame once =
        ChangedFrame.of(Name.of("p"), status("p"), WireResults.watchedState(status("p"), LOG_TIME));
    WatchBytes bytes = new WatchBytes(UnpooledByteBufAllocator.DEFAULT);

    bytes.append(once, 1, 10);
    bytes.append(once, 2, 10);

    assertThat(frames(bytes))
        .containsExactly(
            generated(new WatchEvent.Changed(1, 10, Name.of("p"), status("p"))),
            generated(new WatchEvent.Changed(2, 10, Name.of("p"), status("p"))));
  }

  @Test
  void eventsFramedIntoOneBufferAreReadAsTheFramesTheyWereInTheirOrder() {
    WatchEvent.Changed changed = new WatchEvent.Changed(2, 10, Name.of("p"), status("p"));
    WatchEvent.Synced synced = new WatchEvent.Synced(2, 10);
    WatchEvent.Deleted deleted = new WatchEvent.Deleted(2, 11, Name.of("p"));
    WatchBytes bytes = new WatchBytes(UnpooledByteBufAllocator.DEFAULT);

    bytes.append(
        ChangedFrame.of(Name.of("p"), status("p"), WireResults.watchedState(status("p"), LOG_TIME)),
        2,
        10);
    bytes.append(
        ServerFrame.newBuilder().setWatchEvent(WireResults.watchEvent(synced, LOG_TIME)).build());
    for (int i = 0; i < 200; i++) { // past the buffer's first size: it grows
      bytes.append(
          ServerFrame.newBuilder()
              .setWatchEvent(WireResults.watchEvent(deleted, LOG_TIME))
              .build());
    }

    List<byte[]> read = frames(bytes);
    assertThat(read).hasSize(202);
    assertThat(read.get(0)).isEqualTo(generated(changed));
    assertThat(read.get(1)).isEqualTo(generated(synced));
    assertThat(read.get(201)).isEqualTo(generated(deleted));
  }

  @Test
  void aChangedDetailIsEncodedAsTheGeneratedCodeWouldEncodeIt() throws Exception {
    assertSameFrame(3, 1_234_567_890_123L, "printers/ä", detail("printers/ä"));
  }

  @Test
  void aChangedStatusIsEncodedAsTheGeneratedCodeWouldEncodeIt() throws Exception {
    assertSameFrame(1L << 40, 1, "p", status("p"));
  }

  @Test
  void zeroIdAndRevisionAreLeftOutAsProtobufLeavesOutDefaults() throws Exception {
    assertSameFrame(0, 0, "p", status("p"));
  }
}
