package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.protocol.v1.ClientFrame;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A call the server never answers ends at the client's answer timeout with UNAVAILABLE (outcome
 * unknown), even while the connection stays alive and answers every keep-alive. Before, the thread
 * waiting for it went back to reading after each pong and never looked at its deadline again: a
 * fault campaign's client hung for good on an await whose answer was lost. (The race that kept the
 * waiting thread reading, against the io thread taking the reading over, is not reproduced on
 * demand: this passed on the old client too. It guards the behaviour.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnansweredCallTest {
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  /**
   * A proxy that passes every frame both ways except the client's reads ({@code get} and the like),
   * which it drops: the server answers requests and keep-alives, never those.
   */
  private InetSocketAddress droppingGets(InetSocketAddress server) throws IOException {
    ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    opened.add(listener);
    Thread acceptor =
        new Thread(
            () -> {
              while (!listener.isClosed()) {
                try {
                  Socket client = listener.accept();
                  Socket upstream = new Socket(server.getAddress(), server.getPort());
                  opened.add(client);
                  opened.add(upstream);
                  pump(upstream.getInputStream(), client.getOutputStream());
                  filter(client.getInputStream(), upstream.getOutputStream());
                } catch (IOException closed) {
                  return;
                }
              }
            },
            "dropping-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
  }

  private static void pump(InputStream in, OutputStream out) {
    Thread t =
        new Thread(
            () -> {
              try {
                in.transferTo(out);
              } catch (IOException closed) {
                // either side closed
              }
            },
            "proxy-down");
    t.setDaemon(true);
    t.start();
  }

  private static void filter(InputStream in, OutputStream out) {
    Thread t =
        new Thread(
            () -> {
              try (DataInputStream frames = new DataInputStream(in)) {
                while (true) {
                  int length = frames.readInt();
                  byte[] body = new byte[length];
                  frames.readFully(body);
                  ClientFrame frame = ClientFrame.parseFrom(body);
                  if (frame.hasRead()) {
                    continue; // lost on the way: never answered
                  }
                  synchronized (out) {
                    out.write(
                        new byte[] {
                          (byte) (length >>> 24),
                          (byte) (length >>> 16),
                          (byte) (length >>> 8),
                          (byte) length
                        });
                    out.write(body);
                    out.flush();
                  }
                }
              } catch (IOException closed) {
                // either side closed
              }
            },
            "proxy-up");
    t.setDaemon(true);
    t.start();
  }

  @Test
  void aCallTheServerNeverAnswersEndsAtTheAnswerTimeoutThoughTheConnectionAnswersKeepAlives()
      throws Exception {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      semafor.client().create("x", 3);
      InetSocketAddress proxy = droppingGets(semafor.server().address());
      try (SemaforClient client =
          SemaforClient.builder()
              .addresses("127.0.0.1:" + proxy.getPort())
              .answerTimeout(Duration.ofSeconds(2))
              .connect()) {
        NamedSemaphore x = client.semaphore("x");
        x.increment(1); // requests go through
        long started = System.nanoTime();
        assertThatThrownBy(x::value)
            .isInstanceOfSatisfying(
                SemaforException.class, e -> assertThat(e.code().name()).isEqualTo("UNAVAILABLE"));
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .isLessThan(Duration.ofSeconds(20));
      }
    }
  }
}
