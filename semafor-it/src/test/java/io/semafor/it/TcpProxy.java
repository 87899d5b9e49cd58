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
 * ones refused) and restore: a network failure on demand.
 */
final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile boolean cut;
  private volatile boolean closed;

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
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
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
