package io.semafor.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreePortsTest {
  private static final int LOW = 24_100;

  @Test
  void aPortIsNeverHandedOutTwiceByOneJvm(@TempDir Path locks) {
    Set<Integer> given = new HashSet<>();
    for (int i = 0; i < 8; i++) {
      assertThat(given.add(FreePorts.next(LOW, LOW + 8, locks))).isTrue();
    }
    assertThatThrownBy(() -> FreePorts.next(LOW, LOW + 8, locks))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no free port in 24100..24107");
  }

  @Test
  void aPortAnotherJvmHoldsIsNotHandedOut(@TempDir Path locks) throws Exception {
    int low = LOW + 100;
    // another JVM holds the lock files of every port of the range but one
    List<String> held = new ArrayList<>();
    for (int port = low; port < low + 6; port++) {
      if (port != low + 4) {
        held.add(locks.resolve(Integer.toString(port)).toString());
      }
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(LockHolder.class.getName());
    command.addAll(held);
    Process holder = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("HOLDING " + held.size());
      assertThat(FreePorts.next(low, low + 6, locks)).isEqualTo(low + 4);
    } finally {
      holder.destroyForcibly();
      holder.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aPortSomethingElseListensOnIsNotHandedOut(@TempDir Path locks) throws Exception {
    int low = LOW + 200;
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(low));
      assertThat(FreePorts.next(low, low + 2, locks)).isEqualTo(low + 1);
    }
  }

  /** Locks the files it is given, says HOLDING and how many, and keeps them until it is killed. */
  public static final class LockHolder {
    public static void main(String[] files) throws Exception {
      List<FileChannel> open = new ArrayList<>();
      for (String file : files) {
        Files.createDirectories(Path.of(file).getParent());
        FileChannel channel =
            FileChannel.open(Path.of(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        channel.lock();
        open.add(channel);
      }
      System.out.println("HOLDING " + open.size()); // kept open, so locked
      System.out.flush();
      Thread.sleep(TimeUnit.MINUTES.toMillis(2)); // until killed; bounded if the test dies
    }
  }
}
