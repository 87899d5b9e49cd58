package io.semafor.client.internal;

import java.io.IOException;
import java.net.Socket;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/** Puts TLS over a connected socket, the one way every client connection does it. Stateless. */
public final class TlsSockets {
  private TlsSockets() {}

  /**
   * TLS over {@code socket} (connected to {@code host:port}), the handshake done: closing the
   * result closes {@code socket}.
   *
   * @param verifyHostname whether the server's certificate must name {@code host}, as HTTPS checks
   *     it (subject alternative names, {@code DNS:} or {@code IP:})
   * @throws IOException if the handshake failed (a certificate refused either way, a server that
   *     does not speak TLS)
   */
  public static SSLSocket layer(
      SSLContext context, boolean verifyHostname, Socket socket, String host, int port)
      throws IOException {
    SSLSocket layered =
        (SSLSocket) context.getSocketFactory().createSocket(socket, host, port, true);
    if (verifyHostname) {
      SSLParameters parameters = layered.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      layered.setSSLParameters(parameters);
    }
    // now, not on the first write: a refused certificate fails here, with its own message
    layered.startHandshake();
    return layered;
  }
}
