package io.semafor.server;

import javax.net.ssl.SSLException;

/** Tells TLS failures from other errors on a connection. Stateless. */
final class Tls {
  private Tls() {}

  /**
   * Whether {@code cause} (or what it wraps: Netty's decoder wraps the TLS handler's errors) is a
   * TLS failure: a handshake refused, a record that is not TLS (a plaintext client).
   */
  static boolean failed(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        return true;
      }
    }
    return false;
  }

  /** The TLS failure's own message, one line. */
  static String reason(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof SSLException) {
        String message = String.valueOf(t.getMessage());
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return t instanceof io.netty.handler.ssl.NotSslRecordException
            ? "not a TLS record (a plaintext client?)"
            : line;
      }
    }
    return String.valueOf(cause.getMessage());
  }
}
