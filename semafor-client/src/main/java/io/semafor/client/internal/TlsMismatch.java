package io.semafor.client.internal;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A connection failed because one side speaks TLS and the other does not. Said so, rather than "the
 * server closed the connection" (a plaintext client on a TLS port: the server's TLS layer reads a
 * record that is not TLS and closes without a word) or a TLS library's "unsupported or unrecognized
 * SSL message" (a TLS client on a plaintext port, which answers the ClientHello with a frame of its
 * own). How each is told, on the client alone:
 *
 * <ul>
 *   <li>a TLS client: the first byte the server sent during the handshake, recorded under the TLS
 *       layer ({@link FirstByteSocket}), is not a TLS record's content type (20 to 24);
 *   <li>a plaintext client: the server closed the connection before sending a byte, and a TLS
 *       handshake with the same address gets as far as the server presenting a certificate ({@link
 *       #speaksTls}). Tried only then: a failure path, one connection more.
 * </ul>
 */
public final class TlsMismatch extends IOException {
  private static final long serialVersionUID = 1L;

  private final String address;
  private final boolean serverSpeaksTls;

  private TlsMismatch(String message, String address, boolean serverSpeaksTls) {
    super(message);
    this.address = address;
    this.serverSpeaksTls = serverSpeaksTls;
  }

  /** The server speaks TLS; this client connected in plain text. */
  static TlsMismatch serverSpeaksTls(InetSocketAddress address) {
    String where = address.getHostString() + ":" + address.getPort();
    return new TlsMismatch(
        "the server at "
            + where
            + " speaks TLS and this client connected in plain text: connect with TLS and the CA"
            + " of the server's certificate (SemaforClient.Builder.tls)",
        where,
        true);
  }

  /** The server answered a TLS handshake in plain text. */
  static TlsMismatch serverIsPlaintext(InetSocketAddress address, IOException handshake) {
    String where = address.getHostString() + ":" + address.getPort();
    TlsMismatch e =
        new TlsMismatch(
            "the server at "
                + where
                + " does not speak TLS (it answered the TLS handshake in plain text): connect"
                + " without TLS, or give the server a certificate",
            where,
            false);
    e.addSuppressed(handshake); // not the cause: the cause's message would be shown instead
    return e;
  }

  /** Whether the server speaks TLS (and this client did not); false: the other way round. */
  public boolean serverSpeaksTls() {
    return serverSpeaksTls;
  }

  /** The server's address, {@code HOST:PORT}. */
  public String address() {
    return address;
  }

  /** Whether {@code b} can start a TLS record: its content type (RFC 8446 §5.1), 20 to 24. */
  static boolean startsATlsRecord(int b) {
    return b >= 20 && b <= 24;
  }

  /**
   * Whether a TLS handshake with {@code address} gets as far as the server presenting its
   * certificate: then it speaks TLS. The handshake is abandoned there (the certificate is refused,
   * whatever it is), so nothing is sent but a ClientHello, and no certificate is trusted. Bounded
   * by {@code timeout}, for connecting and for each read.
   */
  static boolean speaksTls(InetSocketAddress address, Duration timeout) {
    AtomicBoolean presented = new AtomicBoolean();
    X509TrustManager observer =
        new X509TrustManager() {
          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType)
              throws CertificateException {
            presented.set(true);
            throw new CertificateException("only asking whether the server speaks TLS");
          }

          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType)
              throws CertificateException {
            throw new CertificateException("a client never checks a client");
          }

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    try (Socket socket = new Socket()) {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {observer}, null);
      socket.connect(address, millis);
      socket.setSoTimeout(millis);
      try (SSLSocket tls =
          (SSLSocket)
              context
                  .getSocketFactory()
                  .createSocket(socket, address.getHostString(), address.getPort(), false)) {
        tls.startHandshake();
      }
    } catch (IOException | GeneralSecurityException e) {
      // expected: the certificate is refused above, or the server is not TLS
    }
    return presented.get();
  }

  /**
   * A socket that records the first byte read from it: under a TLS layer, the first byte the server
   * sent, which tells a TLS record from a plaintext answer. TLS connections only; reads are passed
   * through unchanged.
   */
  static final class FirstByteSocket extends Socket {
    private volatile int first = -1;
    private volatile @org.jspecify.annotations.Nullable InputStream in;

    /** The first byte read, or -1 if none was. */
    int first() {
      return first;
    }

    @Override
    public InputStream getInputStream() throws IOException {
      InputStream wrapped = in;
      if (wrapped == null) {
        wrapped = new Recording(super.getInputStream());
        in = wrapped;
      }
      return wrapped;
    }

    private final class Recording extends FilterInputStream {
      Recording(InputStream in) {
        super(in);
      }

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0 && first < 0) {
          first = b;
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0 && first < 0) {
          first = b[off] & 0xff;
        }
        return n;
      }
    }
  }
}
