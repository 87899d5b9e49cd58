package io.semafor.bench;

import com.google.protobuf.ByteString;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.ListNames;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Welcome;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reproduces the three abuses of issue 13 point 8 against a running server and prints its resident
 * memory (from {@code /proc/PID/status}) before and after, and whether a well-behaved client from
 * another address is still served. Linux only (RSS from /proc; 127.0.0.2 as another address).
 *
 * <pre>
 * java -cp ... io.semafor.bench.AbuseProbe PORT SERVER_PID frames|unread|sessions
 * </pre>
 *
 * <p>{@code frames}: 400 connections each send 1 MiB - 1 B of a frame announced as 1 MiB, and hold
 * it. {@code unread}: one connection sends list_names reads (each answered with half a frame) for
 * 10 s and never reads. {@code sessions}: one address opens up to 100,000 sessions with a 10-minute
 * TTL, closing each connection; then a client from 127.0.0.2 says Hello. Not a unit test: it prints
 * figures for docs/benchmarks.md.
 */
public final class AbuseProbe {
  private static final int MIB = 1 << 20;

  private AbuseProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: AbuseProbe PORT SERVER_PID frames|unread|sessions");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    long pid = Long.parseLong(args[1]);
    String abuse = args[2];
    System.out.printf("%s: server RSS before %d MB%n", abuse, rssMb(pid));
    long start = System.nanoTime();
    switch (abuse) {
      case "frames" -> frames(port);
      case "unread" -> unread(port);
      case "sessions" -> sessions(port);
      default -> throw new IllegalArgumentException("no abuse named " + abuse);
    }
    System.out.printf(
        "%s: server RSS after %d MB (%.1f s)%n",
        abuse, rssMb(pid), (System.nanoTime() - start) / 1e9);
    Welcome other = hello(new Socket(InetAddress.getLoopbackAddress(), port, addr2(), 0), 0);
    System.out.printf(
        "%s: a client from 127.0.0.2 is %s%n",
        abuse, other.hasFailure() ? "refused: " + other.getFailure().getMessage() : "welcomed");
  }

  private static InetAddress addr2() throws IOException {
    return InetAddress.getByName("127.0.0.2");
  }

  private static long rssMb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }

  private static Welcome hello(Socket s, long ttlNanos) throws IOException {
    s.setSoTimeout(10_000);
    send(
        s,
        ClientFrame.newBuilder()
            .setHello(
                Hello.newBuilder()
                    .setProtocolVersion(Frames.PROTOCOL_VERSION)
                    .setSessionTtlNs(ttlNanos))
            .build());
    return receive(s).getWelcome();
  }

  private static void send(Socket s, ClientFrame frame) throws IOException {
    OutputStream out = s.getOutputStream();
    Frames.write(out, frame);
    out.flush();
  }

  private static ServerFrame receive(Socket s) throws IOException {
    return ServerFrame.parseFrom(
        Frames.read(
            new DataInputStream(new BufferedInputStream(s.getInputStream(), 64)),
            Frames.DEFAULT_MAX_FRAME_BYTES));
  }

  private static void frames(int port) throws Exception {
    byte[] unfinished = new byte[MIB - 1];
    unfinished[1] = 0x10; // announces 0x00100000 bytes, 1 MiB: one byte never comes
    List<Socket> held = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < 400; i++) {
      Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
      held.add(s);
      try {
        s.getOutputStream().write(unfinished);
      } catch (IOException closed) {
        refused++;
      }
    }
    Thread.sleep(3000);
    System.out.printf("frames: %d of 400 closed while sending%n", refused);
    for (Socket s : held) {
      s.close();
    }
  }

  private static void unread(int port) throws Exception {
    try (Socket setup = new Socket(InetAddress.getLoopbackAddress(), port)) {
      hello(setup, 0);
      String padding = "p".repeat(1000);
      for (int i = 0; i < 600; i++) {
        send(
            setup,
            ClientFrame.newBuilder()
                .setRequest(
                    Request.newBuilder()
                        .setId(i + 1)
                        .setCreate(
                            Create.newBuilder()
                                .setName(ByteString.copyFrom(padding + i, StandardCharsets.UTF_8))))
                .build());
        receive(setup);
      }
    }
    ByteArrayOutputStream batch = new ByteArrayOutputStream();
    for (int i = 1; i <= 1000; i++) {
      Frames.write(
          batch,
          ClientFrame.newBuilder()
              .setRead(
                  Read.newBuilder()
                      .setId(i)
                      .setListNames(ListNames.newBuilder().setLimit(10_000).setWithStatus(true)))
              .build());
    }
    byte[] reads = batch.toByteArray();
    Socket abuser = new Socket(InetAddress.getLoopbackAddress(), port);
    hello(abuser, 0);
    java.util.concurrent.atomic.AtomicBoolean stopping =
        new java.util.concurrent.atomic.AtomicBoolean();
    Thread writer =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < 100_000; i++) {
                  abuser.getOutputStream().write(reads);
                }
              } catch (IOException closed) {
                if (!stopping.get()) {
                  System.out.println("unread: the server closed the connection");
                }
              }
            });
    writer.setDaemon(true);
    writer.start();
    writer.join(10_000);
    System.out.printf("unread: %s%n", writer.isAlive() ? "the abuser's writes are blocked" : "");
    stopping.set(true);
    abuser.close();
  }

  private static void sessions(int port) throws Exception {
    int opened = 0;
    int refusedInARow = 0;
    String refusal = "";
    for (int i = 0; i < 100_000 && refusedInARow < 100; i++) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        Welcome w = hello(s, 600_000_000_000L);
        if (w.hasFailure()) {
          refusedInARow++;
          refusal = w.getFailure().getMessage();
        } else {
          opened++;
          refusedInARow = 0;
        }
      }
    }
    System.out.printf("sessions: 127.0.0.1 opened %d (then refused: %s)%n", opened, refusal);
  }
}
