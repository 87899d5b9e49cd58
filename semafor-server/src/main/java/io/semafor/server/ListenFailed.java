package io.semafor.server;

import io.semafor.server.options.CommandLines;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A server could not listen on one of its ports: which one ({@link #port()}), on which address, and
 * why (the cause: the port is in use, the address is not this machine's, binding is not permitted).
 * A node listens on several ports, so a message naming only one (the client port, when the admin
 * port was taken) sent users looking in the wrong place (issue 31).
 */
public final class ListenFailed extends UncheckedIOException {
  private static final long serialVersionUID = 1L;

  /** Which of a node's ports could not be bound. */
  public enum Port {
    /** The port clients connect to ({@code --port}, or a cluster node's client port). */
    CLIENT,
    /** The admin HTTP port: metrics, health, the console ({@code --admin-port}). */
    ADMIN,
    /** The HTTP/JSON API's port ({@code --http-port}, docs/http.md). */
    HTTP
  }

  private final Port port;
  private final String host;
  private final int number;

  /**
   * @param port which port
   * @param host the address it was to listen on
   * @param number the port number asked for
   * @param cause why binding failed
   */
  public ListenFailed(Port port, String host, int number, IOException cause) {
    super(
        "cannot listen on " + host + ":" + number + ": " + CommandLines.rootMessage(cause), cause);
    this.port = port;
    this.host = host;
    this.number = number;
  }

  /** Which of the node's ports could not be bound. */
  public Port port() {
    return port;
  }

  /** The address it was to listen on, {@code HOST:PORT}. */
  public String address() {
    return host + ":" + number;
  }

  /**
   * What a server that could not listen says, after its command's name: the address and the option
   * of the port that failed when {@code e} says which (a {@link ListenFailed}), else {@code
   * fallback} (the address the command was given). {@code cannot listen on 127.0.0.1:7401
   * (--admin-port): Address already in use}.
   *
   * @param clientPortOption what sets the client port, for the message: {@code --port}
   */
  public static String messageFor(Throwable e, String clientPortOption, String fallback) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ListenFailed failed) {
        String option =
            switch (failed.port()) {
              case ADMIN -> "--admin-port";
              case HTTP -> "--http-port";
              case CLIENT -> clientPortOption;
            };
        return "cannot listen on "
            + failed.address()
            + " ("
            + option
            + "): "
            + CommandLines.rootMessage(e);
      }
    }
    return "cannot listen on " + fallback + ": " + CommandLines.rootMessage(e);
  }
}
