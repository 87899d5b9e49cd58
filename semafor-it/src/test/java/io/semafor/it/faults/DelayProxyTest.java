package io.semafor.it.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The delaying proxy of {@link Fault#PACKET_DELAY}: late, in order, and nothing lost. */
class DelayProxyTest {
  private ServerSocket echo;
  private @org.jspecify.annotations.Nullable DelayProxy proxy;

  @BeforeEach
  void startEchoServer() throws IOException {
    echo = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              try (Socket s = echo.accept();
                  InputStream in = s.getInputStream();
                  OutputStream out = s.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException e) {
                // the test ended
              }
            },
            "echo");
    t.setDaemon(true);
    t.start();
  }

  @AfterEach
  void stop() throws IOException {
    if (proxy != null) {
      proxy.close();
    }
    echo.close();
  }

  @Test
  void aRoundTripThroughTheProxyTakesAtLeastTheLeastDelayEachWay() throws IOException {
    proxy = new DelayProxy("127.0.0.1", target(), 40, 80, 1);
    try (Socket s = connect()) {
      long start = System.nanoTime();
      s.getOutputStream().write(7);
      assertThat(s.getInputStream().read()).isEqualTo(7);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(80);
    }
  }

  @Test
  void everyByteArrivesOnceAndInOrderWhateverEachChunksDelay() throws IOException {
    proxy = new DelayProxy("127.0.0.1", target(), 0, 30, 2);
    try (Socket s = connect()) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      DataInputStream in = new DataInputStream(s.getInputStream());
      for (int i = 0; i < 2_000; i++) {
        out.writeInt(i);
        if (i % 50 == 0) {
          out.flush(); // many chunks, each with its own random delay
        }
      }
      out.flush();
      for (int i = 0; i < 2_000; i++) {
        assertThat(in.readInt()).isEqualTo(i);
      }
    }
  }

  @Test
  void closingTheProxyEndsItsConnections() throws IOException {
    proxy = new DelayProxy("127.0.0.1", target(), 0, 1, 3);
    try (Socket s = connect()) {
      s.getOutputStream().write(1);
      assertThat(s.getInputStream().read()).isEqualTo(1);
      java.util.Objects.requireNonNull(proxy).close();
      int next;
      try {
        next = s.getInputStream().read();
      } catch (java.net.SocketException reset) {
        next = -1; // ended by a reset rather than a close: ended all the same
      }
      assertThat(next).isEqualTo(-1);
    }
  }

  private InetSocketAddress target() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort());
  }

  private Socket connect() throws IOException {
    Socket s =
        new Socket(
            InetAddress.getLoopbackAddress(), java.util.Objects.requireNonNull(proxy).port());
    s.setSoTimeout(10_000);
    s.setTcpNoDelay(true);
    return s;
  }
}
