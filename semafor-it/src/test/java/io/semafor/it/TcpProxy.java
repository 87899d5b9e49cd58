package io.semafor.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 in front of a server, that a test can cut (every connection dropped, new
 * ones refused) and restore: a network failure on demand. It also tells when a client last sent the
 * server anything, which bounds from below when the server last heard from it.
 */
final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile boolean cut;
  private volatile boolean closed;
  private volatile long lastToServer = System.nanoTime();

  TcpProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        if (cut) {
          client.close();
          continue;
        }
        Socket server = new Socket(target.getAddress(), target.getPort());
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        pump(client, server, true);
        pump(server, client, false);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, boolean toServer) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                  if (toServer) {
                    // stamped before the server can read them: it hears them at this time or later
                    lastToServer = System.nanoTime();
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException ignored) {
                // one side went away
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /**
   * The {@link System#nanoTime()} at which bytes from a client were last passed on to the server
   * (or the proxy was made, if none yet): the server read them no earlier. Thread-safe.
   */
  long lastBytesToServerAt() {
    return lastToServer;
  }

  /** Drops every connection through the proxy and refuses new ones until {@link #restore()}. */
  void cut() {
    cut = true;
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }

  void restore() {
    cut = false;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    cut();
    listener.close();
  }
}
