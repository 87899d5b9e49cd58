package io.semafor.load;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.CloseSession;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * The load held (docs/benchmarks.md, "Load held"): thousands of sessions keeping themselves alive
 * and a hundred thousand blocked waiters, held for minutes against a single node or a cluster,
 * while a trickle of grants goes to the waiters of one semaphore. Checks what a server under that
 * load must keep promising and prints it:
 *
 * <ul>
 *   <li>no session expires while its client keeps it alive (a lost connection or a {@code Fatal}
 *       counts as one);
 *   <li>the keep-alive round trip (sent to {@code Pong}) stays short: p50, p99, p99.9, max;
 *   <li>the grants of the FIFO semaphore, ordered by fencing token (the order they were made), go
 *       to strictly increasing arrival sequences, and every increment made one;
 *   <li>the server's heap after a full GC (with {@code --pids}, read with {@code jcmd}): before,
 *       with the sessions, and with the waiters too — so the cost of one session and of one waiter.
 * </ul>
 *
 * <pre>
 * java -cp semafor-bench/target/benchmarks.jar io.semafor.load.HeldLoad \
 *     --servers 127.0.0.1:7400[,...] [--pids PID[,...]] [--sessions 10000] [--waiters 100000] \
 *     [--processes 4] [--ttl-ms 10000] [--seconds 600] [--grant-every-ms 100]
 * </pre>
 *
 * The sessions are split over {@code --processes} child JVMs ({@link HeldSessions}), each on one
 * selector thread. The server must allow that many connections and sessions from one address
 * ({@code --max-connections}, {@code --max-connections-per-client}, {@code
 * --max-sessions-per-client}); {@code semafor-bench/held-load.sh} starts it so. Exits 1 if a check
 * failed.
 */
public final class HeldLoad {
  private static final Pattern REPORT =
      Pattern.compile(
          "REPORT welcomed=(\\d+) lost=(\\d+) fatal=(\\d+) failures=(\\d+) why=(\\S*) grants=(\\S+)"
              + " hist=(\\S+)");

  private static final Pattern COMMA = Pattern.compile(",");
  private static final Pattern COLON = Pattern.compile(":");
  private static final Pattern SPACE = Pattern.compile(" ");

  private HeldLoad() {}

  public static void main(String[] args) throws Exception {
    List<String> servers = List.of("127.0.0.1:7400");
    List<Long> pids = List.of();
    int sessions = 10_000;
    int waiters = 100_000;
    int processes = 4;
    long ttlMillis = 10_000;
    long seconds = 600;
    long grantEveryMillis = 100;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--servers" -> servers = COMMA.splitAsStream(args[++i]).toList();
        case "--pids" -> pids = COMMA.splitAsStream(args[++i]).map(Long::valueOf).toList();
        case "--sessions" -> sessions = Integer.parseInt(args[++i]);
        case "--waiters" -> waiters = Integer.parseInt(args[++i]);
        case "--processes" -> processes = Integer.parseInt(args[++i]);
        case "--ttl-ms" -> ttlMillis = Long.parseLong(args[++i]);
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        case "--grant-every-ms" -> grantEveryMillis = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (waiters % sessions != 0) {
      throw new IllegalArgumentException("--waiters must be a multiple of --sessions");
    }
    int waitersEach = waiters / sessions;
    String leader = leader(servers);
    System.out.printf(
        Locale.ROOT,
        "leader %s; %d sessions (TTL %d ms), %d waiters, %d processes, %d s%n",
        leader,
        sessions,
        ttlMillis,
        waiters,
        processes,
        seconds);

    String run = Long.toString(System.currentTimeMillis() % 1_000_000);
    String fifoName = "held-" + run + "-fifo";
    String otherPrefix = "held-" + run + "-w-";
    int otherCount = 100;
    List<Process> children = new ArrayList<>();
    try (SemaforClient setup =
        SemaforClient.builder()
            .addresses(String.join(",", servers))
            .answerTimeout(Duration.ofSeconds(60))
            .connect()) {
      NamedSemaphore fifo = setup.create(fifoName, 0);
      List<NamedSemaphore> others = new ArrayList<>();
      for (int k = 0; k < otherCount; k++) {
        others.add(setup.create(otherPrefix + k, 0));
      }
      Map<Long, Long> heapBefore = heaps(pids);

      List<LinkedBlockingQueue<String>> lines = new ArrayList<>();
      List<PrintStream> commands = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        int mine = sessions / processes + (p < sessions % processes ? 1 : 0);
        Process child =
            new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx1g",
                    "-cp",
                    System.getProperty("java.class.path"),
                    HeldSessions.class.getName(),
                    leader,
                    Integer.toString(mine),
                    Integer.toString(waitersEach),
                    Long.toString(ttlMillis),
                    fifoName,
                    otherPrefix,
                    Integer.toString(otherCount),
                    Integer.toString(p))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        children.add(child);
        lines.add(follow(child));
        commands.add(new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8));
      }
      long opened = sum(await(lines, "OPEN", TimeUnit.MINUTES.toNanos(3)));
      System.out.printf(Locale.ROOT, "sessions open: %d%n", opened);
      Map<Long, Long> heapSessions = heaps(pids);

      commands.forEach(c -> c.println("WAIT"));
      long queued = sum(await(lines, "QUEUED", TimeUnit.MINUTES.toNanos(3)));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      long seen = 0;
      while (System.nanoTime() < deadline) {
        seen = fifo.info().waiters();
        for (NamedSemaphore other : others) {
          seen += other.info().waiters();
        }
        if (seen >= queued) {
          break;
        }
        Thread.sleep(500);
      }
      System.out.printf(Locale.ROOT, "waiters sent: %d, queued on the server: %d%n", queued, seen);
      Map<Long, Long> heapWaiters = heaps(pids);

      commands.forEach(c -> c.println("MEASURE"));
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(seconds);
      long increments = 0;
      long nextPrint = start + TimeUnit.MINUTES.toNanos(1);
      while (System.nanoTime() < end) {
        fifo.increment(1);
        increments++;
        Thread.sleep(grantEveryMillis);
        if (System.nanoTime() >= nextPrint) {
          System.out.printf(
              Locale.ROOT,
              "%d s: %d grants made%n",
              TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
              increments);
          nextPrint += TimeUnit.MINUTES.toNanos(1);
        }
      }
      // the last grants' acknowledgements and pongs
      Thread.sleep(2_000);
      commands.forEach(c -> c.println("STOP"));
      List<String> reports = await(lines, "REPORT", TimeUnit.MINUTES.toNanos(1));
      printHeap(heapBefore, heapSessions, heapWaiters, sessions, seen);
      if (!summarize(reports, increments, opened, sessions, queued, seen, waiters)) {
        System.exit(1);
      }
    } finally {
      for (Process child : children) {
        child.destroyForcibly();
      }
    }
  }

  private static boolean summarize(
      List<String> reports,
      long increments,
      long opened,
      int sessions,
      long queued,
      long seen,
      int waiters)
      throws java.util.zip.DataFormatException {
    Histogram roundTrips = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
    long lost = 0;
    long failures = 0;
    TreeMap<Long, Long> grants = new TreeMap<>();
    StringBuilder why = new StringBuilder();
    for (String report : reports) {
      Matcher m = REPORT.matcher(report);
      if (!m.matches()) {
        throw new IllegalStateException("not a report: " + report);
      }
      lost += Long.parseLong(m.group(2));
      failures += Long.parseLong(m.group(4));
      if (!m.group(5).equals("{}")) {
        why.append(m.group(5)).append(' ');
      }
      if (!m.group(6).equals("-")) {
        for (String grant : COMMA.splitAsStream(m.group(6)).toList()) {
          List<String> tokenSequence = COLON.splitAsStream(grant).toList();
          grants.put(Long.valueOf(tokenSequence.get(0)), Long.valueOf(tokenSequence.get(1)));
        }
      }
      roundTrips.add(
          Histogram.decodeFromCompressedByteBuffer(
              ByteBuffer.wrap(Base64.getDecoder().decode(m.group(7))), 0));
    }
    long outOfOrder = 0;
    long previous = -1;
    for (long sequence : grants.values()) {
      if (sequence <= previous) {
        outOfOrder++;
      }
      previous = sequence;
    }
    System.out.printf(
        Locale.ROOT,
        "sessions: %d of %d open; lost while kept alive: %d %s%n",
        opened,
        sessions,
        lost,
        why.toString().trim());
    System.out.printf(
        Locale.ROOT,
        "waiters: %d of %d queued (%d sent); failed requests: %d%n",
        seen,
        waiters,
        queued,
        failures);
    System.out.printf(
        Locale.ROOT,
        "keep-alive round trip: %d pings, p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms%n",
        roundTrips.getTotalCount(),
        roundTrips.getValueAtPercentile(50) / 1000.0,
        roundTrips.getValueAtPercentile(99) / 1000.0,
        roundTrips.getValueAtPercentile(99.9) / 1000.0,
        roundTrips.getMaxValue() / 1000.0);
    System.out.printf(
        Locale.ROOT,
        "FIFO: %d increments, %d grants received, %d out of arrival order%n",
        increments,
        grants.size(),
        outOfOrder);
    boolean ok =
        opened == sessions
            && lost == 0
            && failures == 0
            && seen == waiters
            && grants.size() == increments
            && outOfOrder == 0
            && roundTrips.getValueAtPercentile(99) < 50_000;
    System.out.println(ok ? "held: every check passed" : "held: A CHECK FAILED");
    return ok;
  }

  private static void printHeap(
      Map<Long, Long> before,
      Map<Long, Long> withSessions,
      Map<Long, Long> withWaiters,
      int sessions,
      long waiters) {
    for (Map.Entry<Long, Long> entry : before.entrySet()) {
      long pid = entry.getKey();
      long b = entry.getValue();
      long s = Objects.requireNonNull(withSessions.get(pid), "no heap after the sessions");
      long w = Objects.requireNonNull(withWaiters.get(pid), "no heap after the waiters");
      System.out.printf(
          Locale.ROOT,
          "heap of pid %d after a full GC: %,d B before, %,d B with the sessions, %,d B with the"
              + " waiters too: %,d B per session, %,d B per waiter%n",
          pid,
          b,
          s,
          w,
          (s - b) / sessions,
          waiters == 0 ? 0 : (w - s) / waiters);
    }
  }

  /** Each process's heap after a full GC, in bytes, by PID; empty without PIDs. */
  private static Map<Long, Long> heaps(List<Long> pids) throws IOException, InterruptedException {
    Map<Long, Long> heaps = new TreeMap<>();
    Pattern used = Pattern.compile("used (\\d+)K");
    for (long pid : pids) {
      jcmd(pid, "GC.run");
      jcmd(pid, "GC.run");
      Matcher m = used.matcher(jcmd(pid, "GC.heap_info"));
      if (!m.find()) {
        throw new IOException("no heap figure from jcmd " + pid);
      }
      heaps.put(pid, Long.parseLong(m.group(1)) * 1024);
    }
    return heaps;
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid),
                command)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("jcmd " + pid + " " + command + " failed: " + out);
    }
    return out;
  }

  /** The first address whose node welcomes a session: the leader of a cluster, or the node. */
  private static String leader(List<String> servers) throws IOException {
    for (String server : servers) {
      String[] hostPort = COLON.split(server, 2);
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5_000);
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        Frames.write(
            out,
            ClientFrame.newBuilder()
                .setHello(Hello.newBuilder().setProtocolVersion(Frames.PROTOCOL_VERSION))
                .build());
        ServerFrame welcome =
            ServerFrame.parseFrom(
                Frames.read(
                    new DataInputStream(socket.getInputStream()), Frames.DEFAULT_MAX_FRAME_BYTES));
        if (welcome.hasWelcome() && !welcome.getWelcome().hasFailure()) {
          Frames.write(
              out,
              ClientFrame.newBuilder()
                  .setRequest(
                      Request.newBuilder()
                          .setId(1)
                          .setCloseSession(CloseSession.getDefaultInstance()))
                  .build());
          return server;
        }
      } catch (IOException e) {
        // a node that is down or not answering: try the next
      }
    }
    throw new IOException("no node of " + servers + " welcomes a session");
  }

  /** A queue of the child's stdout lines, filled by a daemon thread. */
  private static LinkedBlockingQueue<String> follow(Process child) {
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  lines.add(line);
                }
              } catch (IOException e) {
                lines.add("GONE " + e.getMessage());
              }
              lines.add("GONE");
            },
            "child-" + child.pid());
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  /** Waits for one line starting with {@code word} from every child; fails on anything else. */
  private static List<String> await(
      List<LinkedBlockingQueue<String>> lines, String word, long nanos)
      throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    List<String> got = new ArrayList<>();
    for (LinkedBlockingQueue<String> child : lines) {
      String line = child.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (line == null || !line.startsWith(word)) {
        throw new IllegalStateException("a client process said " + line + " instead of " + word);
      }
      got.add(line);
    }
    return got;
  }

  private static long sum(List<String> lines) {
    long sum = 0;
    for (String line : lines) {
      sum += Long.parseLong(SPACE.splitAsStream(line).toList().get(1));
    }
    return sum;
  }
}
