package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.SemaforClient;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Fatal;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A server that welcomes the client and then closes the connection on its first request (a server
 * bug, a request it cannot handle): the client sends that request again on every reconnect, so
 * without a pause between such short-lived connections it would reconnect as fast as the machine
 * allows. It must back off instead.
 */
class ReconnectBackoffTest {
  @Test
  void aConnectionThatBreaksRightAfterItIsMadeIsRetriedWithGrowingPauses() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread server = new Thread(() -> serve(listener, connections), "failing-server");
      server.setDaemon(true);
      server.start();
      try (SemaforClient client =
          SemaforClient.builder()
              .addresses("127.0.0.1:" + listener.getLocalPort())
              .answerTimeout(Duration.ofSeconds(3))
              .giveUpAfter(Duration.ofSeconds(30))
              .connect()) {
        int before = connections.get();
        CompletableFuture<Long> get =
            CompletableFuture.supplyAsync(() -> client.semaphore("x").value());
        Thread.sleep(3_000); // a measurement window, not a wait for an outcome
        int reconnects = connections.get() - before;
        // 20 ms, 40, 80, ... 1 s between attempts: about 9 in 3 s; without the pause, thousands
        assertThat(reconnects).isBetween(2, 20);
        get.cancel(true);
      }
    } // closing the listener ends the server thread's accept loop
  }

  /** Welcomes every Hello; answers any other frame with a Fatal and closes the connection. */
  private static void serve(ServerSocket listener, AtomicInteger connections) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!listener.isClosed() && System.nanoTime() < until) {
      try (Socket socket = listener.accept()) {
        connections.incrementAndGet();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        OutputStream out = socket.getOutputStream();
        for (int frames = 0; frames < 100; frames++) {
          byte[] body = new byte[in.readInt()];
          in.readFully(body);
          ClientFrame frame = ClientFrame.parseFrom(body);
          if (frame.hasHello()) {
            Frames.write(
                out,
                ServerFrame.newBuilder()
                    .setWelcome(
                        Welcome.newBuilder()
                            .setProtocolVersion(Frames.PROTOCOL_VERSION)
                            .setSessionId(7)
                            .setSessionTtlNs(frame.getHello().getSessionTtlNs()))
                    .build());
            out.flush();
          } else if (frame.hasRead() || frame.hasRequest()) {
            Frames.write(
                out,
                ServerFrame.newBuilder()
                    .setFatal(
                        Fatal.newBuilder()
                            .setFailure(
                                Failure.newBuilder()
                                    .setCode(ErrorCode.UNAVAILABLE)
                                    .setMessage("internal error")))
                    .build());
            out.flush();
            break;
          }
        }
      } catch (IOException e) {
        // the client went away, or the listener closed: accept the next one, or stop
      }
    }
  }
}
