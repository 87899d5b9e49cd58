package io.semafor.client.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This machine's host name, as a client reports it at {@code Hello} so that operators can tell
 * which machine holds a permit. Read from the kernel on Linux, else from the environment; never
 * from DNS, which can take seconds on a badly configured machine and would slow every connect.
 */
public final class LocalHost {
  private static final String NAME = find();

  private LocalHost() {}

  /** The host name, at most 255 bytes; empty if it cannot be found. Non-blocking. */
  public static String name() {
    return NAME;
  }

  private static String find() {
    String name = "";
    try {
      name = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
    } catch (IOException | RuntimeException e) {
      // not Linux: the environment's name below
    }
    if (name.isEmpty()) {
      String fromEnvironment = System.getenv("HOSTNAME");
      if (fromEnvironment == null) {
        fromEnvironment = System.getenv("COMPUTERNAME");
      }
      name = fromEnvironment == null ? "" : fromEnvironment.strip();
    }
    while (name.getBytes(StandardCharsets.UTF_8).length > 255) {
      name = name.substring(0, name.length() - 1);
    }
    return name;
  }
}
