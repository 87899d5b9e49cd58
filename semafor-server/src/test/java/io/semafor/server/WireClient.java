package io.semafor.server;

import com.google.protobuf.ByteString;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.SemaphoreStatus;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** A raw protocol client for tests: frames in, frames out, nothing clever. */
final class WireClient implements AutoCloseable {
  final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  long sessionId;
  private long nextId;
  private long nextRead;

  WireClient(InetSocketAddress address) throws IOException {
    this(address, null);
  }

  /** A client connecting from {@code from} (127.0.0.2 is another loopback address on Linux). */
  WireClient(InetSocketAddress address, @Nullable InetAddress from) throws IOException {
    socket =
        from == null
            ? new Socket(address.getAddress(), address.getPort())
            : new Socket(address.getAddress(), address.getPort(), from, 0);
    socket.setSoTimeout(10_000);
    socket.setTcpNoDelay(true);
    in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    out = socket.getOutputStream();
  }

  static ByteString name(String text) {
    return ByteString.copyFrom(text, StandardCharsets.UTF_8);
  }

  void send(ClientFrame frame) throws IOException {
    Frames.write(out, frame);
    out.flush();
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  ServerFrame receive() throws IOException {
    return ServerFrame.parseFrom(Frames.read(in, Frames.DEFAULT_MAX_FRAME_BYTES));
  }

  /** The resume secret of the session this client opened; empty before one. */
  ByteString sessionSecret = ByteString.EMPTY;

  Welcome hello(long resume, long ttlNanos) throws IOException {
    return hello(resume, ByteString.EMPTY, ttlNanos);
  }

  /** Opens a session (resume 0) or resumes one, showing {@code secret}. */
  Welcome hello(long resume, ByteString secret, long ttlNanos) throws IOException {
    return hello(
        Hello.newBuilder().setSessionId(resume).setSessionSecret(secret).setSessionTtlNs(ttlNanos));
  }

  /** Says {@code hello} (its protocol version filled in) and returns the Welcome. */
  Welcome hello(Hello.Builder hello) throws IOException {
    send(
        ClientFrame.newBuilder()
            .setHello(hello.setProtocolVersion(Frames.PROTOCOL_VERSION))
            .build());
    Welcome welcome = receive().getWelcome();
    if (!welcome.hasFailure()) {
      sessionId = welcome.getSessionId();
      if (!welcome.getResumed()) {
        sessionSecret = welcome.getSessionSecret();
      }
    }
    return welcome;
  }

  /** Sends a request under the next id and returns that id. */
  long request(Request.Builder request) throws IOException {
    long id = ++nextId;
    send(ClientFrame.newBuilder().setRequest(request.setId(id)).build());
    return id;
  }

  /** Sends a request and returns the next response (the caller knows it is answered at once). */
  Response call(Request.Builder request) throws IOException {
    long id = request(request);
    Response response = receive().getResponse();
    if (response.getId() != id) {
      throw new AssertionError("expected the response to " + id + ", got " + response);
    }
    return response;
  }

  /** Reads a semaphore's status; the caller knows no other frame is due on this connection. */
  SemaphoreStatus status(String name) throws IOException {
    long id = ++nextRead;
    send(
        ClientFrame.newBuilder()
            .setRead(Read.newBuilder().setId(id).setGet(Get.newBuilder().setName(name(name))))
            .build());
    ServerFrame frame = receive();
    if (frame.getReadResponse().getId() != id) {
      throw new AssertionError("expected the answer to read " + id + ", got " + frame);
    }
    return frame.getReadResponse().getStatus();
  }

  /** Whether the server closed the connection (reads end of stream). */
  boolean closedByServer() {
    try {
      while (true) {
        receive();
      }
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
