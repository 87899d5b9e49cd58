package io.semafor.load;

import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreWatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watchers for the watch-cost benchmark (docs/benchmarks.md, "Watches"): opens N watches of a name
 * prefix, each on its own connection, counts the changes they are told, and after the given seconds
 * prints how many events they got in all and per watch.
 *
 * <pre>
 * java -cp semafor-bench/target/benchmarks.jar io.semafor.load.WatchLoad \
 *     --server host:port --prefix W2- --watchers 100 --seconds 20 [--raw]
 * </pre>
 *
 * <p>With {@code --raw} each watcher is a bare socket that subscribes and reads the frames it is
 * sent without parsing them: what the server pays, without the watchers' own decoding competing for
 * the same CPUs (on one machine, 100 Java clients decoding every event cost more than the server).
 */
public final class WatchLoad {
  private WatchLoad() {}

  public static void main(String[] args) throws Exception {
    String server = "127.0.0.1:7400";
    String prefix = "";
    int watchers = 100;
    long seconds = 20;
    boolean raw = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--server" -> server = args[++i];
        case "--prefix" -> prefix = args[++i];
        case "--watchers" -> watchers = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        case "--raw" -> raw = true;
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (raw) {
      raw(server, prefix, watchers, seconds);
      return;
    }
    AtomicLong changes = new AtomicLong();
    AtomicLong syncs = new AtomicLong();
    List<SemaphoreWatch> open = new ArrayList<>();
    try (SemaforClient client = SemaforClient.connect(server)) {
      for (int i = 0; i < watchers; i++) {
        open.add(
            client.watchPrefix(
                prefix,
                false,
                e -> {
                  if (e instanceof SemaphoreWatch.Changed) {
                    changes.incrementAndGet();
                  } else if (e instanceof SemaphoreWatch.Synced) {
                    syncs.incrementAndGet();
                  }
                }));
      }
      System.out.printf("watching: %d watches of prefix \"%s\"%n", watchers, prefix);
      Thread.sleep(seconds * 1000);
    } finally {
      open.forEach(SemaphoreWatch::close);
    }
    System.out.printf(
        "watched: %d changes told (%d per watch), %d syncs%n",
        changes.get(), changes.get() / Math.max(1, watchers), syncs.get());
  }

  /** Bare-socket watchers: subscribe, then read and count frames without parsing them. */
  private static void raw(String server, String prefix, int watchers, long seconds)
      throws Exception {
    String host = server.substring(0, server.lastIndexOf(':'));
    int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
    AtomicLong frames = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    List<java.net.Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < watchers; i++) {
        java.net.Socket socket = new java.net.Socket(host, port);
        sockets.add(socket);
        io.semafor.protocol.Frames.write(
            socket.getOutputStream(),
            io.semafor.protocol.v1.ClientFrame.newBuilder()
                .setWatch(
                    io.semafor.protocol.v1.Watch.newBuilder()
                        .setId(1)
                        .setPrefix(true)
                        .setName(
                            com.google.protobuf.ByteString.copyFrom(
                                prefix, java.nio.charset.StandardCharsets.UTF_8)))
                .build());
        java.io.DataInputStream in =
            new java.io.DataInputStream(
                new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16));
        Thread reader =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      byte[] frame =
                          io.semafor.protocol.Frames.read(
                              in, io.semafor.protocol.Frames.DEFAULT_MAX_FRAME_BYTES);
                      frames.incrementAndGet();
                      bytes.addAndGet(io.semafor.protocol.Frames.PREFIX_BYTES + frame.length);
                    }
                  } catch (java.io.IOException e) {
                    // closed at the end
                  }
                },
                "watch-reader-" + i);
        reader.setDaemon(true);
        reader.start();
      }
      System.out.printf("watching: %d raw watches of prefix \"%s\"%n", watchers, prefix);
      Thread.sleep(seconds * 1000);
    } finally {
      for (java.net.Socket s : sockets) {
        s.close();
      }
    }
    System.out.printf(
        "watched: %d frames read (%d per watch), %d bytes (%d per frame)%n",
        frames.get(),
        frames.get() / Math.max(1, watchers),
        bytes.get(),
        bytes.get() / Math.max(1, frames.get()));
  }
}
