package io.semafor.it;

import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import java.time.Duration;

/**
 * A single-node server in its own process, for tests that stop or kill the server itself. Prints
 * {@code LISTENING <port>} once it listens, then serves until it is killed. Args: minimum session
 * TTL in milliseconds.
 */
public final class ServerProcess {
  private ServerProcess() {}

  public static void main(String[] args) throws InterruptedException {
    SemaforServer server =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .adminPort(-1)
                .minSessionTtl(Duration.ofMillis(Long.parseLong(args[0])))
                .build());
    System.out.println("LISTENING " + server.address().getPort());
    System.out.flush();
    Thread.currentThread().join(); // until killed
  }
}
