package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Fatal;
import io.semafor.protocol.v1.ServerFrame;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that connects while its cluster elects a leader waits for the election instead of
 * failing: a node that accepted the Hello and then found it does not lead answers with a fatal
 * NOT_LEADER frame, and that is "try again", as a Welcome refusing with NOT_LEADER is. (Found by
 * the fault harness: client processes started during an election died at once.)
 */
class ConnectDuringElectionTest {
  /**
   * A node in an election: its first {@code refusals} connections get a fatal NOT_LEADER after
   * their Hello; later ones are passed through to {@code server}.
   */
  private static final class ElectingNode implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger refused = new AtomicInteger();
    private final Thread acceptor;

    /** Whether it stops listening with its last refusal (a node going down, to restart). */
    volatile boolean goesDownAfterRefusing;

    ElectingNode(InetSocketAddress server, int refusals) throws IOException {
      this(server, refusals, 0);
    }

    /** Listening on {@code port} (0: any free one). */
    ElectingNode(InetSocketAddress server, int refusals, int port) throws IOException {
      socket = new ServerSocket();
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 50);
      acceptor =
          new Thread(
              () -> {
                while (!socket.isClosed()) {
                  try {
                    Socket c = socket.accept();
                    if (refused.get() < refusals) {
                      if (refused.get() + 1 == refusals && goesDownAfterRefusing) {
                        socket.close(); // down before its answer: the next connect is refused
                      }
                      refuse(c);
                      refused.incrementAndGet();
                    } else {
                      pass(c, server);
                    }
                  } catch (IOException e) {
                    return; // closed
                  }
                }
              },
              "electing-node");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    private static void refuse(Socket c) throws IOException {
      try (c) {
        Frames.read(
            new DataInputStream(new BufferedInputStream(c.getInputStream())),
            Frames.DEFAULT_MAX_FRAME_BYTES);
        Frames.write(
            c.getOutputStream(),
            ServerFrame.newBuilder()
                .setFatal(
                    Fatal.newBuilder()
                        .setFailure(
                            Failure.newBuilder()
                                .setCode(ErrorCode.NOT_LEADER)
                                .setMessage(
                                    "this node is not the leader, and no leader is known yet")))
                .build());
      }
    }

    private static void pass(Socket c, InetSocketAddress server) throws IOException {
      Socket s = new Socket(server.getAddress(), server.getPort());
      pipe(c.getInputStream(), s.getOutputStream(), c, s);
      pipe(s.getInputStream(), c.getOutputStream(), c, s);
    }

    private static void pipe(InputStream in, OutputStream out, Socket a, Socket b) {
      Thread t =
          new Thread(
              () -> {
                try {
                  in.transferTo(out);
                } catch (IOException e) {
                  // one side closed: close both below
                }
                try {
                  a.close();
                  b.close();
                } catch (IOException e) {
                  // already closed
                }
              },
              "electing-node-pipe");
      t.setDaemon(true);
      t.start();
    }

    int address() {
      return socket.getLocalPort();
    }

    int refused() {
      return refused.get();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  @Test
  @Timeout(30)
  void aClientConnectingDuringAnElectionWaitsForTheLeader() throws Exception {
    try (EmbeddedSemafor server = EmbeddedSemafor.start();
        ElectingNode node = new ElectingNode(server.server().address(), 3);
        SemaforClient client =
            SemaforClient.builder()
                .addresses("127.0.0.1:" + node.address())
                .connectTimeout(Duration.ofSeconds(10))
                .connect()) {
      client.create("elected", 1);
      assertThat(client.semaphore("elected").value()).isEqualTo(1);
      assertThat(node.refused()).isEqualTo(3);
    }
  }

  @Test
  @Timeout(30)
  void aClientThatHeardFromTheClusterKeepsTryingWhileEveryNodeRefusesForAMoment() throws Exception {
    try (EmbeddedSemafor server = EmbeddedSemafor.start()) {
      InetSocketAddress leader = server.server().address();
      // the first Hello is refused with NOT_LEADER and the node goes down: its port refuses
      // connections for half a second, then it is back, passing through to the leader
      ElectingNode electing = new ElectingNode(leader, 1);
      electing.goesDownAfterRefusing = true;
      int port = electing.address();
      Thread restart =
          new Thread(
              () -> {
                try {
                  org.awaitility.Awaitility.await()
                      .atMost(Duration.ofSeconds(10))
                      .until(() -> electing.refused() == 1);
                  Thread.sleep(500);
                  restarted = new ElectingNode(leader, 0, port);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              "restart");
      restart.start();
      try (SemaforClient client =
          SemaforClient.builder()
              .addresses("127.0.0.1:" + port)
              .connectTimeout(Duration.ofSeconds(10))
              .connect()) {
        client.create("after-restart", 1);
        assertThat(client.semaphore("after-restart").value()).isEqualTo(1);
      } finally {
        restart.join(10_000);
        electing.close();
        ElectingNode r = restarted;
        if (r != null) {
          r.close();
        }
      }
    }
  }

  private volatile @org.jspecify.annotations.Nullable ElectingNode restarted;
}
