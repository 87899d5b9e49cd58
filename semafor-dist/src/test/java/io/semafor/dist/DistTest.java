package io.semafor.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarball as a user gets it: unpacked with {@code tar} in a temporary directory, its
 * {@code bin/semafor} run as a process (a server and clients on 127.0.0.1), its example
 * configuration and systemd unit checked.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DistTest {
  private static final Pattern LISTENING =
      Pattern.compile("semafor server listening on (127\\.0\\.0\\.1:\\d+)");

  @TempDir static Path unpacked;

  private static Path home;

  /** How a finished process ended. */
  record Finished(int status, String out, String err) {}

  @BeforeAll
  static void unpack() throws Exception {
    Path tarball = Path.of(property("semafor.dist.tarball"));
    assertThat(tarball).isRegularFile();
    Finished tar = run(List.of("tar", "-xzf", tarball.toString(), "-C", unpacked.toString()));
    assertThat(tar.status()).as("tar: %s", tar.err()).isZero();
    home = unpacked.resolve(property("semafor.dist.name"));
  }

  @Test
  void theTarballHasTheLayoutTheDocsDescribe() {
    assertThat(home.resolve("bin/semafor")).isRegularFile().isExecutable();
    assertThat(home.resolve("lib/semafor.jar")).isRegularFile();
    assertThat(home.resolve("lib/semafor.jsa"))
        .as("the CDS archive (decision 0025)")
        .isRegularFile();
    assertThat(home.resolve("conf/semafor.conf")).isRegularFile();
    assertThat(home.resolve("systemd/semafor.service")).isRegularFile();
    assertThat(home.resolve("docs/operations.md")).isRegularFile();
    assertThat(home.resolve("docs/cli.md")).isRegularFile();
    assertThat(home.resolve("README.md")).isRegularFile();
  }

  @Test
  void versionPrintsTheProjectVersionAlsoThroughSymlinks() throws Exception {
    Finished direct = semafor("--version");
    assertThat(direct.status()).as(direct.err()).isZero();
    String first = direct.out().lines().findFirst().orElseThrow();
    assertThat(first)
        .matches(
            "semafor "
                + Pattern.quote(property("semafor.version"))
                + "( \\(commit [0-9a-f]{12}\\))?");
    assertThat(direct.out()).contains("wire protocol ");

    // /usr/local/bin/semafor -> ... -> bin/semafor, a relative link among them
    Path links = Files.createDirectories(unpacked.resolve("links/sub"));
    Files.createSymbolicLink(links.getParent().resolve("one"), home.resolve("bin/semafor"));
    Files.createSymbolicLink(links.resolve("two"), Path.of("../one"));
    Finished linked = run(List.of(links.resolve("two").toString(), "--version"));
    assertThat(linked.status()).as(linked.err()).isZero();
    assertThat(linked.out()).isEqualTo(direct.out());
  }

  @Test
  void withoutJavaItSaysSoAndExits127() throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder("/bin/sh", home.resolve("bin/semafor").toString(), "--version");
    builder.environment().remove("JAVA_HOME");
    builder.environment().put("PATH", unpacked.resolve("no-such-dir").toString());
    Finished f = finish(builder.start());
    assertThat(f.status()).isEqualTo(127);
    assertThat(f.err()).startsWith("semafor: no java found").contains("JAVA_HOME");
  }

  @Test
  void aServerAndClientsRunFromTheUnpackedTarball() throws Exception {
    Process server = startServer("server.log");
    try {
      String address = awaitListening(server, unpacked.resolve("server.log"));
      Finished create = semafor("create", "x", "1", "--server", address);
      assertThat(create.status()).as(create.err()).isZero();
      Finished inc = semafor("inc", "x", "--server", address);
      assertThat(inc.out()).as(inc.err()).isEqualTo("2");
      Finished get = semafor("get", "x", "--server", address);
      assertThat(get.status()).as(get.err()).isZero();
      assertThat(get.out()).isEqualTo("2");
      assertThat(get.err()).isEmpty();
    } finally {
      stop(server);
    }
  }

  /**
   * Client commands run with lib/semafor.jsa (decision 0025) when it matches the JVM, and print
   * exactly what they would without it when it does not: a corrupt or cut archive, another JVM's
   * (every other JDK under /usr/lib/jvm), or none. Not timed: docs/benchmarks.md has the figures.
   */
  @Test
  void clientCommandsUseTheCdsArchiveAndIgnoreAMismatchedOneSilently() throws Exception {
    Process server = startServer("cds-server.log");
    try {
      String address = awaitListening(server, unpacked.resolve("cds-server.log"));
      Finished create = semafor("create", "cds", "3", "--server", address);
      assertThat(create.status()).as(create.err()).isZero();

      // -Xshare:on (after the launcher's -Xshare:auto) makes an unusable archive fatal
      Finished shared =
          semaforIn(
              home, Map.of("SEMAFOR_JAVA_OPTS", "-Xshare:on"), "get", "cds", "--server", address);
      assertThat(shared.status()).as("the archive is used: %s", shared.err()).isZero();
      assertThat(shared.out()).isEqualTo("3");
      assertThat(shared.err()).isEmpty();

      byte[] archive = Files.readAllBytes(home.resolve("lib/semafor.jsa"));
      Map<String, byte[]> broken =
          Map.of(
              "garbage", "not a CDS archive\n".repeat(1000).getBytes(StandardCharsets.UTF_8),
              "cut", Arrays.copyOf(archive, 64 * 1024),
              "empty", new byte[0]);
      for (Map.Entry<String, byte[]> b : broken.entrySet()) {
        Path copy = copyOfRelease(b.getKey());
        Files.write(copy.resolve("lib/semafor.jsa"), b.getValue());
        Finished get = semaforIn(copy, Map.of(), "get", "cds", "--server", address);
        assertThat(get.status()).as("%s archive: %s", b.getKey(), get.err()).isZero();
        assertThat(get.out()).as("%s archive", b.getKey()).isEqualTo("3");
        assertThat(get.err()).as("%s archive", b.getKey()).isEmpty();
      }
      // older than the jar: stale (a build that skipped it), the launcher leaves it out
      Path stale = copyOfRelease("stale");
      Files.setLastModifiedTime(
          stale.resolve("lib/semafor.jsa"),
          java.nio.file.attribute.FileTime.fromMillis(
              Files.getLastModifiedTime(home.resolve("lib/semafor.jar")).toMillis() - 60_000));
      Finished old =
          semaforIn(
              stale, Map.of("SEMAFOR_JAVA_OPTS", "-Xshare:on"), "get", "cds", "--server", address);
      assertThat(old.out()).as(old.err()).isEqualTo("3");
      assertThat(old.err()).isEmpty();

      Path none = copyOfRelease("none");
      Files.delete(none.resolve("lib/semafor.jsa"));
      Finished without = semaforIn(none, Map.of(), "get", "cds", "--server", address);
      assertThat(without.out()).as(without.err()).isEqualTo("3");
      assertThat(without.err()).isEmpty();

      for (Path otherJava : otherJdks()) {
        Finished get =
            semaforIn(
                home, Map.of("JAVA_HOME", otherJava.toString()), "get", "cds", "--server", address);
        assertThat(get.status()).as("%s: %s", otherJava, get.err()).isZero();
        assertThat(get.out()).as(otherJava.toString()).isEqualTo("3");
        assertThat(get.err()).as(otherJava.toString()).isEmpty();
      }
    } finally {
      stop(server);
    }
  }

  /** {@code bin/semafor server} on 127.0.0.1, any free port, logging to {@code log}. */
  private static Process startServer(String log) throws Exception {
    return builder(
            home,
            List.of(
                "server",
                "--config",
                home.resolve("conf/semafor.conf").toString(),
                "--port",
                "0",
                "--http-port",
                "-1",
                "--admin-port",
                "-1"))
        .redirectErrorStream(true)
        .redirectOutput(unpacked.resolve(log).toFile())
        .start();
  }

  private static void stop(Process server) throws InterruptedException {
    // bin/semafor execs java, so this PID is the server's JVM: SIGTERM stops it gracefully
    server.destroy();
    if (!server.waitFor(20, TimeUnit.SECONDS)) {
      server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(server.isAlive()).isFalse();
  }

  /** A release beside the unpacked one: its own bin/semafor and archive, the same jar (linked). */
  private static Path copyOfRelease(String name) throws Exception {
    Path copy = Files.createDirectories(unpacked.resolve("copies").resolve(name));
    Files.createDirectories(copy.resolve("bin"));
    Files.createDirectories(copy.resolve("lib"));
    Files.copy(home.resolve("bin/semafor"), copy.resolve("bin/semafor"));
    Files.createLink(copy.resolve("lib/semafor.jar"), home.resolve("lib/semafor.jar"));
    Files.copy(home.resolve("lib/semafor.jsa"), copy.resolve("lib/semafor.jsa"));
    return copy;
  }

  /** The JDKs under /usr/lib/jvm other than the one running this test (none elsewhere). */
  private static List<Path> otherJdks() throws Exception {
    Path jvms = Path.of("/usr/lib/jvm");
    List<Path> others = new ArrayList<>();
    if (!Files.isDirectory(jvms)) {
      return others;
    }
    Path self = Path.of(System.getProperty("java.home")).toRealPath();
    Set<Path> seen = new TreeSet<>();
    try (var dirs = Files.list(jvms)) {
      for (Path dir : dirs.sorted().toList()) {
        if (Files.isExecutable(dir.resolve("bin/java"))) {
          Path real = dir.toRealPath();
          if (!real.equals(self) && seen.add(real)) {
            others.add(real);
          }
        }
      }
    }
    return others;
  }

  @Test
  void theExampleConfigNamesEveryServerOptionAndNothingElse() throws Exception {
    Set<String> configured = new TreeSet<>();
    Matcher key =
        Pattern.compile("(?m)^#([a-z][a-z-]*) = ")
            .matcher(Files.readString(home.resolve("conf/semafor.conf")));
    while (key.find()) {
      configured.add(key.group(1));
    }
    Finished help = semafor("server", "--help");
    assertThat(help.status()).as(help.err()).isZero();
    Set<String> options = new TreeSet<>();
    Matcher option = Pattern.compile("--([a-z][a-z-]*)").matcher(help.out());
    while (option.find()) {
      options.add(option.group(1));
    }
    // options of the command line only, or named in descriptions as other commands' options
    options.removeAll(Set.of("help", "version", "config"));
    assertThat(configured).contains("port", "session-ttl", "data-dir").isEqualTo(options);
  }

  @Test
  void theSystemdUnitStartsTheServerWithTheConfigAndPassesSystemdAnalyzeVerify() throws Exception {
    String unit = Files.readString(home.resolve("systemd/semafor.service"));
    assertThat(unit)
        .contains("ExecStart=/opt/semafor/bin/semafor server --config /etc/semafor/semafor.conf")
        .contains("Restart=on-failure")
        .contains("RestartPreventExitStatus=65")
        .contains("NoNewPrivileges=yes")
        .contains("ProtectSystem=strict")
        .contains("User=semafor");
    Path analyze = Path.of("/usr/bin/systemd-analyze");
    if (!Files.isExecutable(analyze)) {
      return; // not on every machine; the text checks above still hold
    }
    // verify checks that ExecStart's program exists: point it at the unpacked one
    Path copy = unpacked.resolve("semafor.service");
    Files.writeString(
        copy, unit.replace("/opt/semafor/bin/semafor", home.resolve("bin/semafor").toString()));
    Finished verify = run(List.of(analyze.toString(), "verify", "--man=no", copy.toString()));
    assertThat(verify.status()).as(verify.out() + verify.err()).isZero();
    assertThat(verify.err()).isEmpty();
  }

  /** The address in the server's "listening on" line, waiting at most 60 s for it. */
  private static String awaitListening(Process server, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String output = Files.exists(log) ? Files.readString(log) : "";
      Matcher m = LISTENING.matcher(output);
      if (m.find()) {
        return m.group(1);
      }
      if (!server.isAlive()) {
        throw new AssertionError("the server exited " + server.exitValue() + ":\n" + output);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the server did not listen in 60 s:\n" + Files.readString(log));
  }

  private static Finished semafor(String... args) throws Exception {
    return semaforIn(home, Map.of(), args);
  }

  /** {@code release/bin/semafor ARGS...}, {@code env} added to the environment. */
  private static Finished semaforIn(Path release, Map<String, String> env, String... args)
      throws Exception {
    ProcessBuilder builder = builder(release, Arrays.asList(args));
    builder.environment().putAll(env);
    return finish(builder.start());
  }

  /** {@code release/bin/semafor ARGS...} with this JVM's Java as JAVA_HOME. */
  private static ProcessBuilder builder(Path release, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(release.resolve("bin/semafor").toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).directory(unpacked.toFile());
    Map<String, String> env = builder.environment();
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.remove("SEMAFOR_SERVER");
    env.remove("SEMAFOR_SESSION_TTL");
    env.remove("SEMAFOR_JAVA_OPTS");
    return builder;
  }

  private static Finished run(List<String> command) throws Exception {
    return finish(new ProcessBuilder(command).start());
  }

  /** Waits at most 60 s for {@code p} to end, reading its output meanwhile. */
  private static Finished finish(Process p) throws InterruptedException {
    FutureTask<String> out = drain(p.getInputStream());
    FutureTask<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        throw new AssertionError(p.info().commandLine().orElse("a process") + " ran over 60 s");
      }
      return new Finished(p.exitValue(), output(out), output(err));
    } finally {
      p.destroyForcibly();
    }
  }

  private static FutureTask<String> drain(InputStream stream) {
    FutureTask<String> task =
        new FutureTask<>(() -> new String(stream.readAllBytes(), StandardCharsets.UTF_8));
    Thread reader = new Thread(task, "dist-output");
    reader.setDaemon(true);
    reader.start();
    return task;
  }

  private static String output(FutureTask<String> drained) throws InterruptedException {
    try {
      return drained.get(10, TimeUnit.SECONDS).strip();
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("reading a process's output failed", e);
    }
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null) {
      throw new IllegalStateException(name + " is not set: run this test through Maven");
    }
    return value;
  }
}
