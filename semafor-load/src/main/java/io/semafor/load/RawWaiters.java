package io.semafor.load;

import com.google.protobuf.ByteString;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Many queued acquires at the cost of one client thread: sessions on raw connections, each sending
 * its acquires in one write, and one selector thread that counts the answers. For a storm benchmark
 * whose other client must not compete with a hundred client threads for the two cores (the waiters
 * of a real storm are on other machines). Not thread-safe; closed by {@link #close}.
 */
final class RawWaiters implements AutoCloseable {
  private static final int PER_SESSION = 4_000;

  private final List<SocketChannel> channels = new ArrayList<>();

  /** Opens enough sessions on {@code address} to queue {@code waiters} acquires of {@code name}. */
  RawWaiters(InetSocketAddress address, String name, int waiters) throws IOException {
    for (int queued = 0; queued < waiters; queued += PER_SESSION) {
      SocketChannel channel = SocketChannel.open(address);
      channels.add(channel);
      channel.socket().setTcpNoDelay(true);
      write(
          channel,
          Frames.encode(
              ClientFrame.newBuilder()
                  .setHello(
                      Hello.newBuilder()
                          .setProtocolVersion(Frames.PROTOCOL_VERSION)
                          .setSessionTtlNs(TimeUnit.MINUTES.toNanos(5))
                          .setClientName("storm-waiters"))
                  .build()));
      InputStream in = channel.socket().getInputStream();
      ServerFrame welcome =
          ServerFrame.parseFrom(
              Frames.read(new DataInputStream(in), Frames.DEFAULT_MAX_FRAME_BYTES));
      if (!welcome.hasWelcome() || welcome.getWelcome().hasFailure()) {
        throw new IOException("not welcomed: " + welcome);
      }
      write(channel, acquires(name, Math.min(PER_SESSION, waiters - queued)));
    }
  }

  private static void write(SocketChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  private static byte[] acquires(String name, int count) {
    ByteString bytes = ByteString.copyFrom(name, StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 1; i <= count; i++) {
      byte[] frame =
          Frames.encode(
              ClientFrame.newBuilder()
                  .setRequest(
                      Request.newBuilder()
                          .setId(i)
                          .setAcquire(
                              Acquire.newBuilder().setName(bytes).setAmount(1).setTimeoutNs(-1)))
                  .build());
      out.write(frame, 0, frame.length);
    }
    return out.toByteArray();
  }

  /**
   * Reads answers on every connection until {@code expected} have come, or the deadline; returns
   * when the last came ({@link System#nanoTime()}), or -1 on the deadline.
   */
  long awaitAnswers(int expected, long deadlineNanos) throws IOException {
    try (Selector selector = Selector.open()) {
      for (SocketChannel channel : channels) {
        channel.configureBlocking(false);
        channel.register(selector, SelectionKey.OP_READ, new Framer());
      }
      int answered = 0;
      while (answered < expected) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return -1;
        }
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        for (SelectionKey key : selector.selectedKeys()) {
          answered += ((Framer) key.attachment()).read((SocketChannel) key.channel());
        }
        selector.selectedKeys().clear();
      }
      return System.nanoTime();
    }
  }

  /** Counts whole frames as they arrive on one connection. */
  private static final class Framer {
    private final ByteBuffer buffer = ByteBuffer.allocate(1 << 20);

    int read(SocketChannel channel) throws IOException {
      if (channel.read(buffer) < 0) {
        throw new IOException("the server closed a waiters' connection");
      }
      buffer.flip();
      int frames = 0;
      while (buffer.remaining() >= Frames.PREFIX_BYTES) {
        int length = buffer.getInt(buffer.position());
        if (buffer.remaining() < Frames.PREFIX_BYTES + length) {
          break;
        }
        buffer.position(buffer.position() + Frames.PREFIX_BYTES + length);
        frames++;
      }
      buffer.compact();
      return frames;
    }
  }

  @Override
  public void close() throws IOException {
    for (SocketChannel channel : channels) {
      channel.close();
    }
  }
}
