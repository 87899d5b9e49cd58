package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.WatchEvent;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the outbox writes to a connection, read back from an embedded channel with the server's
 * frame encoder: a connection's watch events of a batch leave in one buffer, anything else queued
 * for it between them keeps its place, and the buffers of a connection that closed are released.
 */
class OutboxTest {
  private final Outbox outbox = new Outbox();
  private final Recipient connection = new Recipient();

  /** A connection on an embedded channel (its own event loop, run by the test). */
  private static final class Recipient implements Outbox.Recipient {
    final EmbeddedChannel channel = new EmbeddedChannel(new FrameCodec.Encoder());
    final DeferredFlush flush = new DeferredFlush();
    int readsAnswered;

    @Override
    public @Nullable Channel channel() {
      return channel;
    }

    @Override
    public DeferredFlush watchFlush() {
      return flush;
    }

    @Override
    public void readAnswered() {
      readsAnswered++;
    }
  }

  @AfterEach
  void closeChannel() {
    connection.channel.finishAndReleaseAll();
  }

  private static ServerFrame event(long id) {
    return ServerFrame.newBuilder().setWatchEvent(WatchEvent.newBuilder().setId(id)).build();
  }

  private static ServerFrame answer(long id) {
    return ServerFrame.newBuilder().setResponse(Response.newBuilder().setId(id)).build();
  }

  /** Every buffer written to the channel, in order. */
  private List<ByteBuf> written() {
    connection.channel.runPendingTasks();
    List<ByteBuf> out = new ArrayList<>();
    for (Object o = connection.channel.readOutbound();
        o != null;
        o = connection.channel.readOutbound()) {
      out.add((ByteBuf) o);
    }
    return out;
  }

  /** The frames in {@code buffers}, each as a client reads it: its length, then its bytes. */
  private static List<ServerFrame> frames(List<ByteBuf> buffers) throws Exception {
    List<ServerFrame> frames = new ArrayList<>();
    for (ByteBuf b : buffers) {
      while (b.isReadable()) {
        byte[] frame = new byte[b.readInt()];
        b.readBytes(frame);
        frames.add(ServerFrame.parseFrom(frame));
      }
      b.release();
    }
    return frames;
  }

  private void watchEvent(long id) {
    WatchBytes to = outbox.watchBytes(connection);
    assertThat(to).isNotNull();
    to.append(event(id));
  }

  @Test
  void aConnectionsWatchEventsOfABatchLeaveInOneBuffer() throws Exception {
    watchEvent(1);
    watchEvent(2);
    watchEvent(3);
    outbox.flush();

    List<ByteBuf> written = written();
    assertThat(written).hasSize(1);
    assertThat(frames(written))
        .extracting(f -> f.getWatchEvent().getId())
        .containsExactly(1L, 2L, 3L);
  }

  @Test
  void anAnswerQueuedBetweenWatchEventsKeepsItsPlace() throws Exception {
    watchEvent(1);
    outbox.add(connection, answer(7));
    watchEvent(2);
    outbox.flush();

    List<ServerFrame> frames = frames(written());
    assertThat(frames).hasSize(3);
    assertThat(frames.get(0).getWatchEvent().getId()).isEqualTo(1);
    assertThat(frames.get(1).getResponse().getId()).isEqualTo(7);
    assertThat(frames.get(2).getWatchEvent().getId()).isEqualTo(2);
  }

  @Test
  void theWatchEventsOfAConnectionThatClosedAreReleased() {
    connection.channel.close().syncUninterruptibly();
    WatchBytes to = outbox.watchBytes(connection);
    assertThat(to).isNotNull();
    to.append(event(1));

    outbox.flush();

    assertThat(to.buffer().refCnt()).isZero();
    assertThat(written()).isEmpty();
  }

  @Test
  void aReadsSlotIsFreedOnceItsAnswerIsWritten() throws Exception {
    outbox.addReadAnswer(connection, answer(3));
    assertThat(connection.readsAnswered).isZero();

    outbox.flush();

    assertThat(connection.readsAnswered).isEqualTo(1);
    assertThat(frames(written())).extracting(f -> f.getResponse().getId()).containsExactly(3L);
  }

  @Test
  void aFlushWritesOnlyWhatWasQueuedSinceTheLast() throws Exception {
    watchEvent(1);
    outbox.flush();
    frames(written());

    outbox.flush();

    assertThat(written()).isEmpty();
  }
}
