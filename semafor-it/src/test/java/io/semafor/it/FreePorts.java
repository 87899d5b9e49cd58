package io.semafor.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers a test starts later. Taken below the kernel's ephemeral range (Linux: from
 * 32768), because a port the kernel hands out for {@code bind(0)} is also one it hands out as the
 * local port of outgoing connections: between the pick and the server's bind, a connection of the
 * same test could take it ("Failed to bind to address 0.0.0.0:35317", CI at 55c06ee).
 */
public final class FreePorts {
  private static final int LOW = 20_000;
  private static final int HIGH = 32_000;
  private static final int TRIES = 200;

  /** Every port handed out in this JVM: never handed out twice. */
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  /**
   * A port in 20000..31999 that could be bound just now.
   *
   * @throws IllegalStateException if none of {@value #TRIES} tries could be bound
   */
  public static int next() {
    for (int i = 0; i < TRIES; i++) {
      int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
      if (!GIVEN.add(port)) {
        continue; // handed out already: its server may be starting, or closing
      }
      // without SO_REUSEADDR, as gRPC's Netty server binds: a port whose last connections are in
      // TIME_WAIT is refused here too ("Address already in use" at 31797, CI at 6cdd07e)
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new InetSocketAddress(port));
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IllegalStateException("no free port in " + LOW + ".." + HIGH + " after " + TRIES);
  }
}
