package io.semafor.embedded;

import io.semafor.client.SemaforClient;
import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Semafor in this process: a server on a free loopback port, and clients of it with exactly the API
 * a remote server would give (for tests and single-process applications).
 *
 * <pre>{@code
 * try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
 *   SemaforClient client = semafor.client();
 *   client.create("jobs", 4);
 * }
 * }</pre>
 *
 * <p>State lives in memory and ends with {@link #close()}. Thread-safe.
 */
public final class EmbeddedSemafor implements AutoCloseable {
  private final SemaforServer server;
  private final SemaforClient client;
  private final List<SemaforClient> clients = new CopyOnWriteArrayList<>();

  private EmbeddedSemafor(SemaforServer server) {
    this.server = server;
    this.client = newClient();
  }

  /** Starts a server on 127.0.0.1 and a free port, with default settings. */
  public static EmbeddedSemafor start() {
    return start(ServerConfig.builder().port(0));
  }

  /**
   * Starts a server configured by {@code config} (its host and port included; port 0 picks a free
   * one).
   */
  public static EmbeddedSemafor start(ServerConfig.Builder config) {
    try {
      return new EmbeddedSemafor(SemaforServer.start(config.build()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting", e);
    }
  }

  /** A client opened at start, shared by whoever asks; closed by {@link #close()}. */
  public SemaforClient client() {
    return client;
  }

  /** A new client with its own session; closed by {@link #close()} unless closed before. */
  public SemaforClient newClient() {
    return newClient(Duration.ofSeconds(10));
  }

  /** A new client whose session has the given TTL. */
  public SemaforClient newClient(Duration sessionTtl) {
    SemaforClient c =
        SemaforClient.builder()
            .addresses(address())
            .sessionTtl(sessionTtl)
            .clientName("embedded")
            .connect();
    clients.add(c);
    return c;
  }

  /** {@code host:port} of the server, for clients in other processes. */
  public String address() {
    return server.config().host() + ":" + server.address().getPort();
  }

  /** The server itself. */
  public SemaforServer server() {
    return server;
  }

  /** Closes every client it handed out, then the server. */
  @Override
  public void close() {
    for (SemaforClient c : clients) {
      c.close();
    }
    server.close();
  }
}
