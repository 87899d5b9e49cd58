package io.semafor.it.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A private network this harness creates and owns: a Linux bridge with an address on a test subnet
 * of 10.77.0.0/16, and one network namespace per host behind it (a veth pair each), so that every
 * node and client has its own address and its own firewall. Partitions are iptables rules inside
 * the namespaces; nothing outside them is touched, and nothing but the test subnet and loopback is
 * ever addressed.
 *
 * <p>{@link #close} deletes the namespaces and the bridge, also after a failure; a run killed
 * before it could (kill -9 of the test JVM) leaves a marker file naming its owner's PID, and the
 * next network made on this machine removes what a dead owner left ({@link #removeLeftovers}).
 *
 * <p>Needs root and the {@code ip} and {@code iptables} commands ({@link #unavailableBecause}). Not
 * thread-safe: one harness drives it.
 */
final class TestNetwork implements AutoCloseable {
  /** Where owners of live networks are written: one file per network, holding the owner's PID. */
  private static final Path MARKERS = Path.of("/tmp/semafor-faults");

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  /** One host of the network: its namespace, its address and the host-side end of its link. */
  record Host(String name, String namespace, String address, String link) {}

  private final String id;
  private final String bridge;
  private final String subnet;
  private final Map<String, Host> hosts = new LinkedHashMap<>();
  private boolean closed;

  private TestNetwork(String id, int third) {
    this.id = id;
    this.bridge = "smfbr" + id;
    this.subnet = "10.77." + third;
  }

  /**
   * Why this machine cannot host a test network (not root, or a command missing); null if it can.
   */
  static @org.jspecify.annotations.Nullable String unavailableBecause() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "the fault harness needs root (network namespaces, iptables, tmpfs, ptrace); running as "
          + System.getProperty("user.name");
    }
    for (String command : List.of("ip", "ss", "iptables", "strace", "mount", "fallocate")) {
      if (!onPath(command)) {
        return "the fault harness needs the '"
            + command
            + "' command (Debian: apt-get install -y iproute2 iptables strace util-linux)";
      }
    }
    if (NodeClock.library() == null) {
      return "the fault harness needs libfaketime for the clock faults (Debian: apt-get install -y"
          + " faketime)";
    }
    return null;
  }

  private static boolean onPath(String command) {
    for (String dir : String.valueOf(System.getenv("PATH")).split(":", -1)) {
      if (Files.isExecutable(Path.of(dir.isEmpty() ? "." : dir, command))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", command))
        || Files.isExecutable(Path.of("/sbin", command));
  }

  /**
   * Makes the bridge, with hosts to be added by {@link #addHost}; first removes what dead owners
   * left on this machine.
   *
   * @throws IllegalStateException if a command fails (its output is in the message)
   */
  static synchronized TestNetwork create() {
    removeLeftovers();
    NodeDisk.removeLeftovers();
    SecureRandom random = new SecureRandom();
    String id = String.format(Locale.ROOT, "%04x", random.nextInt(0x10000));
    // a subnet no interface of this machine is on yet (another run's bridge, here or elsewhere)
    String inUse = output("ip", "-o", "-4", "addr", "show");
    int third = 1 + random.nextInt(250);
    for (int tries = 0; inUse.contains(" 10.77." + third + ".") && tries < 250; tries++) {
      third = 1 + (third % 250);
    }
    TestNetwork network = new TestNetwork(id, third);
    network.mark();
    try {
      run("ip", "link", "add", network.bridge, "type", "bridge");
      run("ip", "addr", "add", network.subnet + ".1/24", "dev", network.bridge);
      run("ip", "link", "set", network.bridge, "up");
    } catch (RuntimeException e) {
      network.close();
      throw e;
    }
    return network;
  }

  private void mark() {
    try {
      Files.createDirectories(MARKERS);
      Files.writeString(
          MARKERS.resolve(id),
          Long.toString(ProcessHandle.current().pid()),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Adds a host: a namespace {@code smf-ID-NAME} with loopback and {@code eth0} on the test subnet,
   * linked to the bridge. Hosts get .11, .12, … in the order they are added.
   */
  Host addHost(String name) {
    String namespace = "smf-" + id + "-" + name;
    String link = "smf" + id + name;
    if (link.length() > 13) {
      throw new IllegalArgumentException("host name too long for a link name: " + name);
    }
    String address = subnet + "." + (11 + hosts.size());
    run("ip", "netns", "add", namespace);
    Host host = new Host(name, namespace, address, link);
    hosts.put(name, host);
    run("ip", "link", "add", link, "type", "veth", "peer", "name", link + "p");
    run("ip", "link", "set", link + "p", "netns", namespace);
    inside(host, "ip", "link", "set", link + "p", "name", "eth0");
    inside(host, "ip", "addr", "add", address + "/24", "dev", "eth0");
    inside(host, "ip", "link", "set", "eth0", "up");
    inside(host, "ip", "link", "set", "lo", "up");
    run("ip", "link", "set", link, "master", bridge);
    run("ip", "link", "set", link, "up");
    return host;
  }

  /** The host named {@code name}. */
  Host host(String name) {
    Host h = hosts.get(name);
    if (h == null) {
      throw new IllegalArgumentException("no host " + name);
    }
    return h;
  }

  /** The command prefix that runs a program inside {@code host}'s namespace. */
  static List<String> in(Host host) {
    return List.of("ip", "netns", "exec", host.namespace());
  }

  /**
   * The command that runs {@code mainClass} of the test class path in a JVM of its own inside
   * {@code host}'s namespace, with a heap of {@code heapMb}. C1 only and the serial collector: a
   * dozen such JVMs share two cores, and what the harness checks is correctness, not speed.
   */
  static List<String> javaIn(Host host, int heapMb, Class<?> mainClass, List<String> args) {
    return javaIn(host, List.of(), heapMb, mainClass, args);
  }

  /**
   * {@link #javaIn(Host, int, Class, List)} with {@code wrapper} (such as {@code env NAME=value})
   * between entering the namespace and {@code java}.
   */
  static List<String> javaIn(
      Host host, List<String> wrapper, int heapMb, Class<?> mainClass, List<String> args) {
    return javaIn(host, wrapper, List.of(), heapMb, mainClass, args);
  }

  /**
   * {@link #javaIn(Host, List, int, Class, List)} with {@code jvmOptions} given to {@code java}.
   */
  static List<String> javaIn(
      Host host,
      List<String> wrapper,
      List<String> jvmOptions,
      int heapMb,
      Class<?> mainClass,
      List<String> args) {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(in(host));
    command.addAll(wrapper);
    command.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx" + heapMb + "m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2"));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", classpath, mainClass.getName()));
    command.addAll(args);
    return command;
  }

  /** Runs a command inside {@code host}'s namespace and waits for it; fails if it fails. */
  static void inside(Host host, String... command) {
    List<String> all = new ArrayList<>(in(host));
    all.addAll(List.of(command));
    run(all.toArray(String[]::new));
  }

  // ------------------------------------------------------------------ partitions

  /** {@code to} drops every packet from {@code from}: a one-way cut (TCP then fails both ways). */
  void drop(Host from, Host to) {
    inside(to, "iptables", "-A", "INPUT", "-s", from.address(), "-j", "DROP");
  }

  /** Cuts every pair between the two groups, both ways. */
  void partition(List<Host> side, List<Host> other) {
    for (Host a : side) {
      for (Host b : other) {
        drop(a, b);
        drop(b, a);
      }
    }
  }

  /**
   * {@code to} drops each packet from the test network at random with {@code probability}
   * (iptables' statistic match; {@code tc netem} is not available here): TCP retransmits, so
   * connections slow down and stall rather than break.
   */
  void lose(Host to, double probability) {
    inside(
        to,
        "iptables",
        "-A",
        "INPUT",
        "-i",
        "eth0",
        "-m",
        "statistic",
        "--mode",
        "random",
        "--probability",
        String.format(Locale.ROOT, "%.3f", probability),
        "-j",
        "DROP");
  }

  /**
   * Every TCP connection of {@code host} on the test network is reset, both ways, and every new one
   * refused with a reset: its connections are cut mid-request.
   */
  void reset(Host host) {
    for (String[] chain : new String[][] {{"INPUT", "-i"}, {"OUTPUT", "-o"}}) {
      inside(
          host,
          "iptables",
          "-A",
          chain[0],
          chain[1],
          "eth0",
          "-p",
          "tcp",
          "-j",
          "REJECT",
          "--reject-with",
          "tcp-reset");
    }
  }

  /** The bridge's own address on the test subnet: the harness's side of the network. */
  String gateway() {
    return subnet + ".1";
  }

  /**
   * Connections that any other host opens from now on to {@code target}'s {@code port} go to {@code
   * viaPort} on the {@link #gateway} instead (iptables DNAT in each host's namespace), where a
   * {@link DelayProxy} passes them on; connections already open are not moved ({@link
   * #cutConnections} does that). {@link #unredirect} undoes it.
   */
  void redirect(Host target, int port, int viaPort) {
    for (Host h : hosts.values()) {
      if (!h.equals(target)) {
        inside(
            h,
            "iptables",
            "-t",
            "nat",
            "-A",
            "OUTPUT",
            "-p",
            "tcp",
            "-d",
            target.address(),
            "--dport",
            Integer.toString(port),
            "-j",
            "DNAT",
            "--to-destination",
            gateway() + ":" + viaPort);
      }
    }
  }

  /** Connections opened from now on go straight to their destination again. */
  void unredirect() {
    for (Host h : hosts.values()) {
      inside(h, "iptables", "-t", "nat", "-F", "OUTPUT");
    }
  }

  /**
   * Aborts every open TCP connection from any host to {@code target}'s {@code port} ({@code ss
   * -K}): the sockets at the connecting ends fail at once, and their peers' with the next segment.
   */
  void cutConnections(Host target, int port) {
    for (Host h : hosts.values()) {
      quietly(
          "ip",
          "netns",
          "exec",
          h.namespace(),
          "ss",
          "-K",
          "dst",
          target.address(),
          "dport",
          "=",
          ":" + port);
    }
  }

  /** Removes every rule: all hosts reach each other again. */
  void heal() {
    for (Host h : hosts.values()) {
      inside(h, "iptables", "-F", "INPUT");
      inside(h, "iptables", "-F", "OUTPUT");
      inside(h, "iptables", "-t", "nat", "-F", "OUTPUT");
    }
  }

  /** Deletes the namespaces (their links go with them) and the bridge; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Host h : hosts.values()) {
      quietly("ip", "netns", "del", h.namespace());
    }
    quietly("ip", "link", "del", bridge);
    try {
      Files.deleteIfExists(MARKERS.resolve(id));
    } catch (IOException e) {
      // the marker only helps a later run clean up; it finds nothing left to remove
    }
  }

  /**
   * Removes the namespaces and bridges of networks whose owner process is gone (a test JVM killed
   * before its {@link #close}).
   */
  static void removeLeftovers() {
    if (!Files.isDirectory(MARKERS)) {
      return;
    }
    try (var markers = Files.list(MARKERS)) {
      for (Path marker : markers.filter(Files::isRegularFile).toList()) {
        String owner = Files.readString(marker).strip();
        boolean alive;
        try {
          alive = ProcessHandle.of(Long.parseLong(owner)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
          alive = false;
        }
        if (!alive) {
          String id = marker.getFileName().toString();
          for (String ns : output("ip", "netns", "list").lines().toList()) {
            String name = ns.split(" ", -1)[0];
            if (name.startsWith("smf-" + id + "-")) {
              quietly("ip", "netns", "del", name);
            }
          }
          quietly("ip", "link", "del", "smfbr" + id);
          Files.deleteIfExists(marker);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------ commands

  /** Runs a command and waits; throws with its output if it fails or takes too long. */
  static void run(String... command) {
    Result r = execute(command);
    if (r.status != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed (" + r.status + "): " + r.output.strip());
    }
  }

  private static String output(String... command) {
    return execute(command).output;
  }

  static void quietly(String... command) {
    execute(command);
  }

  private record Result(int status, String output) {}

  private static Result execute(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      boolean ended = p.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (!ended) {
        p.destroyForcibly();
        return new Result(-1, String.join(" ", command) + ": no answer in " + COMMAND_TIMEOUT);
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      return new Result(-1, String.valueOf(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted");
    }
  }
}
