package io.semafor.load;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One client process of {@link HeldLoad}: a few thousand sessions on raw connections, all served by
 * one selector thread, each keeping itself alive as the protocol asks (a {@code KeepAlive} after
 * TTL/3 of silence) and, once told, queueing its waiters. Raw frames rather than the Java client,
 * because a client process with thousands of sessions would need thousands of client instances and
 * their threads; the server sees exactly what real clients send.
 *
 * <p>It talks to its parent over stdin and stdout, one line each way per step: it prints {@code
 * OPEN n} once its sessions are all welcomed, then on {@code WAIT} sends every session's acquires
 * and prints {@code QUEUED n}, on {@code MEASURE} starts the round-trip figures afresh, then on
 * {@code STOP} prints one {@code REPORT} line (keep-alive round trips as an encoded HdrHistogram,
 * sessions lost, failures, and every grant of the FIFO semaphore as token:sequence) and exits. A
 * session is <em>lost</em> if the server closed its connection or sent a {@code Fatal} (such as
 * {@code SESSION_EXPIRED}): with keep-alives sent on time, either is a spurious expiry.
 *
 * <pre>
 * java -cp benchmarks.jar io.semafor.load.HeldSessions HOST:PORT SESSIONS WAITERS_EACH TTL_MS \
 *     FIFO_NAME OTHER_PREFIX OTHER_COUNT PROCESS_INDEX
 * </pre>
 *
 * Not thread-safe: one thread drives every session; a second only reads stdin.
 */
final class HeldSessions {
  /** Connections being opened at once, so that opening thousands does not flood the backlog. */
  private static final int CONNECTING_AT_ONCE = 64;

  private final InetSocketAddress address;
  private final int sessions;
  private final int waitersEach;
  private final long ttlNanos;
  private final ByteString fifoName;
  private final String otherPrefix;
  private final int otherCount;
  private final int processIndex;

  private final Selector selector;
  private final List<Session> all = new ArrayList<>();
  private final LinkedBlockingQueue<String> commands = new LinkedBlockingQueue<>();
  private final SplittableRandom random = new SplittableRandom();

  /** Keep-alive round trips, microseconds: sent to the {@code Pong}. */
  private final Histogram roundTrips = new Histogram(TimeUnit.HOURS.toMicros(1), 3);

  /** FIFO semaphore grants: token → arrival sequence. */
  private final TreeMap<Long, Long> fifoGrants = new TreeMap<>();

  private int connecting;
  private int welcomed;
  private int lost;
  private int fatal;
  private int failures;
  private final TreeMap<String, Integer> whyLost = new TreeMap<>();

  private HeldSessions(String[] args) throws IOException {
    String[] hostPort = args[0].split(":", 2);
    address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
    sessions = Integer.parseInt(args[1]);
    waitersEach = Integer.parseInt(args[2]);
    ttlNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
    fifoName = ByteString.copyFromUtf8(args[4]);
    otherPrefix = args[5];
    otherCount = Integer.parseInt(args[6]);
    processIndex = Integer.parseInt(args[7]);
    selector = Selector.open();
  }

  public static void main(String[] args) throws IOException {
    new HeldSessions(args).run();
  }

  private void run() throws IOException {
    Thread stdin = new Thread(this::readCommands, "stdin");
    stdin.setDaemon(true);
    stdin.start();
    boolean announcedOpen = false;
    long keepAliveEvery = ttlNanos / 3;
    while (true) {
      while (connecting < CONNECTING_AT_ONCE && all.size() < sessions) {
        connect();
      }
      selector.select(5);
      long now = System.nanoTime();
      for (SelectionKey key : selector.selectedKeys()) {
        Session session = (Session) key.attachment();
        try {
          if (key.isValid() && key.isConnectable()) {
            session.finishConnect(now);
          }
          if (key.isValid() && key.isWritable()) {
            session.flush();
          }
          if (key.isValid() && key.isReadable()) {
            session.read(now);
          }
        } catch (IOException e) {
          session.lose("io: " + e.getMessage());
        }
      }
      selector.selectedKeys().clear();
      for (Session session : all) {
        if (session.welcomed && !session.dead && now - session.lastSent >= keepAliveEvery) {
          session.keepAlive(now);
        }
      }
      if (!announcedOpen && welcomed + lost == sessions && all.size() == sessions) {
        say("OPEN " + welcomed);
        announcedOpen = true;
      }
      String command = commands.poll();
      if ("WAIT".equals(command)) {
        int queued = 0;
        for (Session session : all) {
          if (!session.dead) {
            session.queueWaiters();
            queued += waitersEach;
          }
        }
        say("QUEUED " + queued);
      } else if ("MEASURE".equals(command)) {
        roundTrips
            .reset(); // what the set-up cost (forced full GCs, the waiters' burst) is not held
      } else if ("STOP".equals(command) || (command == null && !stdin.isAlive())) {
        report();
        for (Session session : all) {
          session.channel.close();
        }
        return;
      }
    }
  }

  private void readCommands() {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        commands.add(line.trim());
        selector.wakeup();
      }
    } catch (IOException e) {
      // the parent is gone: run() sees this thread end and stops
    }
  }

  private void connect() throws IOException {
    SocketChannel channel = SocketChannel.open();
    channel.configureBlocking(false);
    channel.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
    boolean connected = channel.connect(address);
    Session session =
        new Session(
            channel, all.size(), connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
    all.add(session);
    connecting++;
    if (connected) {
      session.hello(System.nanoTime());
    }
  }

  private void report() {
    ByteBuffer encoded = ByteBuffer.allocate(roundTrips.getNeededByteBufferCapacity());
    roundTrips.encodeIntoCompressedByteBuffer(encoded);
    encoded.flip();
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);
    StringBuilder grants = new StringBuilder();
    fifoGrants.forEach(
        (token, sequence) -> grants.append(token).append(':').append(sequence).append(','));
    say(
        String.format(
            Locale.ROOT,
            "REPORT welcomed=%d lost=%d fatal=%d failures=%d why=%s grants=%s hist=%s",
            welcomed,
            lost,
            fatal,
            failures,
            whyLost.toString().replace(' ', '_'),
            grants.length() == 0 ? "-" : grants.substring(0, grants.length() - 1),
            Base64.getEncoder().encodeToString(bytes)));
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** One raw session: its connection, what is still to be written, and its pings in flight. */
  private final class Session {
    final SocketChannel channel;
    final int index;
    final ByteBuffer in = ByteBuffer.allocate(16 * 1024);
    final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    final ArrayDeque<Long> pingsSent = new ArrayDeque<>();
    final List<Long> acks = new ArrayList<>();
    final SelectionKey key;
    boolean welcomed;
    boolean dead;
    long lastSent;

    Session(SocketChannel channel, int index, int interest) throws IOException {
      this.channel = channel;
      this.index = index;
      this.key = channel.register(selector, interest, this);
    }

    void finishConnect(long now) throws IOException {
      channel.finishConnect();
      key.interestOps(SelectionKey.OP_READ);
      hello(now);
    }

    void hello(long now) throws IOException {
      send(
          ClientFrame.newBuilder()
              .setHello(
                  Hello.newBuilder()
                      .setProtocolVersion(Frames.PROTOCOL_VERSION)
                      .setSessionTtlNs(ttlNanos)
                      .setClientName("held-load-" + processIndex))
              .build(),
          now);
    }

    void keepAlive(long now) throws IOException {
      KeepAlive.Builder keepAlive = KeepAlive.newBuilder().addAllAcks(acks);
      acks.clear();
      pingsSent.add(now);
      send(ClientFrame.newBuilder().setKeepAlive(keepAlive).build(), now);
    }

    void queueWaiters() throws IOException {
      long now = System.nanoTime();
      for (int i = 1; i <= waitersEach; i++) {
        ByteString name =
            i == 1
                ? fifoName
                : ByteString.copyFromUtf8(
                    otherPrefix + Math.floorMod(index * waitersEach + i, otherCount));
        send(
            ClientFrame.newBuilder()
                .setRequest(
                    Request.newBuilder()
                        .setId(i)
                        .setAcquire(
                            Acquire.newBuilder().setName(name).setAmount(1).setTimeoutNs(-1)))
                .build(),
            now);
      }
    }

    void send(ClientFrame frame, long now) throws IOException {
      lastSent = now;
      out.add(ByteBuffer.wrap(Frames.encode(frame)));
      flush();
    }

    void flush() throws IOException {
      while (!out.isEmpty()) {
        ByteBuffer head = out.peek();
        channel.write(head);
        if (head.hasRemaining()) {
          key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
          return;
        }
        out.poll();
      }
      if (key.isValid()) {
        key.interestOps(SelectionKey.OP_READ);
      }
    }

    void read(long now) throws IOException {
      if (channel.read(in) < 0) {
        lose("closed by the server");
        return;
      }
      in.flip();
      while (in.remaining() >= Frames.PREFIX_BYTES) {
        int length = in.getInt(in.position());
        if (in.remaining() < Frames.PREFIX_BYTES + length) {
          break;
        }
        byte[] body = new byte[length];
        in.position(in.position() + Frames.PREFIX_BYTES);
        in.get(body);
        handle(parse(body), now);
        if (dead) {
          return;
        }
      }
      in.compact();
    }

    private ServerFrame parse(byte[] body) throws IOException {
      try {
        return ServerFrame.parseFrom(body);
      } catch (InvalidProtocolBufferException e) {
        throw new IOException("a frame that does not parse", e);
      }
    }

    private void handle(ServerFrame frame, long now) throws IOException {
      switch (frame.getBodyCase()) {
        case WELCOME -> {
          if (frame.getWelcome().hasFailure()) {
            lose("not welcomed: " + frame.getWelcome().getFailure().getCode());
          } else {
            connecting--;
            welcomed = true;
            HeldSessions.this.welcomed++;
            // spread the keep-alives over the interval, as independent clients would be
            lastSent = now - random.nextLong(ttlNanos / 3);
          }
        }
        case PONG -> {
          Long sent = pingsSent.poll();
          if (sent != null) {
            roundTrips.recordValue(Math.max(0, TimeUnit.NANOSECONDS.toMicros(now - sent)));
          }
        }
        case RESPONSE -> {
          Response response = frame.getResponse();
          if (response.hasGranted()) {
            if (response.getId() == 1) {
              fifoGrants.put(response.getGranted().getToken(), response.getGranted().getSequence());
            }
          } else {
            failures++;
            whyLost.merge("failure " + response.getFailure().getCode(), 1, Integer::sum);
          }
          acks.add(response.getId());
          keepAlive(now); // acknowledge within milliseconds, as the protocol asks
        }
        case FATAL -> {
          fatal++;
          lose("fatal " + frame.getFatal().getFailure().getCode());
        }
        default -> {}
      }
    }

    void lose(String why) {
      if (dead) {
        return;
      }
      if (!welcomed) {
        connecting--;
      }
      dead = true;
      lost++;
      whyLost.merge(why.replace(' ', '_'), 1, Integer::sum);
      key.cancel();
      try {
        channel.close();
      } catch (IOException e) {
        // closing a connection that already failed: nothing more to learn from it
      }
    }
  }
}
