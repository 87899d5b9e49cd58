package io.semafor.examples;

import io.semafor.client.SemaforClient;
import io.semafor.client.WaitMany;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * IRIS WaitMany: one thread waits on several semaphores at once and handles whichever are granted,
 * each through its own callback, round robin. Here a dispatcher serves three queues of alerts.
 */
public final class WaitForAny {
  private WaitForAny() {}

  public static void main(String[] args) throws Exception {
    try (SemaforClient client = SemaforClient.connect(Server.address(args))) {
      List<String> handled = run(client, Server.fresh("alerts"));
      System.out.println("handled: " + handled);
    }
  }

  /** Raises alerts on three semaphores and handles them; returns what was handled, in order. */
  static List<String> run(SemaforClient client, String prefix) throws Exception {
    List<String> names = List.of(prefix + "/disk", prefix + "/cpu", prefix + "/net");
    for (String name : names) {
      client.create(name, 0);
    }
    List<String> handled = new ArrayList<>();
    try (WaitMany alerts = client.waitMany()) {
      for (String name : names) {
        alerts.add(name, 10, granted -> handled.add(name + " x" + granted));
      }
      client.semaphore(names.get(1)).increment(2); // two cpu alerts
      client.semaphore(names.get(2)).increment(1); // one net alert
      int reported = alerts.await(Duration.ofSeconds(5));
      System.out.println(reported + " semaphores had alerts: " + handled);
    }
    for (String name : names) {
      client.semaphore(name).delete();
    }
    return handled;
  }
}
