package io.semafor.it.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of the server for one actor, which the kit's environment steps
 * act on (conformance/README.md, "What a runner provides"): {@code cut} drops the actor's
 * connections and refuses new ones until {@code restore}; {@code deafen} holds what the server
 * sends it; {@code freeze} holds its traffic both ways, as for a stopped process; {@code thaw}
 * delivers what was held, in order; {@code kill} drops its connections for good. Held bytes stay in
 * the kernel's socket buffers (the pumps stop reading), so nothing is reordered or lost unless the
 * connection is cut.
 */
final class ActorProxy implements AutoCloseable {
  private enum State {
    OPEN,
    CUT,
    DEAF,
    FROZEN,
    DEAD
  }

  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private State state = State.OPEN;
  private volatile boolean closed;

  ActorProxy(InetSocketAddress target, String actor) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "proxy-accept-" + actor);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The address the actor's client connects to. */
  String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        State now;
        synchronized (lock) {
          now = state;
        }
        if (now == State.CUT || now == State.DEAD) {
          client.close();
          continue;
        }
        Socket server = new Socket(target.getAddress(), target.getPort());
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        AtomicInteger ended = new AtomicInteger();
        pump(client, server, true, ended);
        pump(server, client, false, ended);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  /**
   * Copies one direction. It waits while that direction is held, before reading and again before
   * writing what it read, so nothing passes a hold. When one side ends, only this direction is shut
   * down: what the other direction still carries (a server's last {@code Fatal}) gets through.
   */
  private void pump(Socket from, Socket to, boolean toServer, AtomicInteger ended) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (awaitFlowing(toServer)) {
                  int n = in.read(buffer);
                  if (n < 0 || !awaitFlowing(toServer)) {
                    break;
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException ignored) {
                // one side went away
              } finally {
                try {
                  to.shutdownOutput();
                } catch (IOException ignored) {
                  // already closed or reset
                }
                if (ended.incrementAndGet() == 2) { // both directions done
                  closeQuietly(from);
                  closeQuietly(to);
                }
              }
            },
            toServer ? "proxy-to-server" : "proxy-to-client");
    t.setDaemon(true);
    t.start();
  }

  /** Waits while this direction is held; false once the link is cut or dead. */
  private boolean awaitFlowing(boolean toServer) {
    synchronized (lock) {
      while (state == State.FROZEN || (state == State.DEAF && !toServer)) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return state != State.CUT && state != State.DEAD && !closed;
    }
  }

  void cut() {
    drop(State.CUT);
  }

  void restore() {
    set(State.OPEN);
  }

  void deafen() {
    set(State.DEAF);
  }

  void freeze() {
    set(State.FROZEN);
  }

  void thaw() {
    set(State.OPEN);
  }

  void kill() {
    drop(State.DEAD);
  }

  /** Lets a held or cut link flow again (to close its client); a killed one stays dead. */
  void release() {
    synchronized (lock) {
      if (state != State.DEAD) {
        state = State.OPEN;
        lock.notifyAll();
      }
    }
  }

  private void set(State next) {
    synchronized (lock) {
      state = next;
      lock.notifyAll();
    }
  }

  /** Drops every connection (what was held with it) and refuses new ones. */
  private void drop(State next) {
    set(next);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
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
    drop(State.DEAD);
    listener.close();
  }
}
