package io.semafor.it;

import io.semafor.client.Lease;
import io.semafor.client.SemaforClient;
import java.time.Duration;

/**
 * A client in its own process, for tests that kill it: connects with the given session TTL, takes
 * one owned permit of {@code marker} (it comes back when the session ends, so a test can see that
 * happen), takes a lease of one permit of {@code semaphore} for {@code leaseMillis}, prints {@code
 * LEASE <permit id>} at once, and waits to be killed. Args: address marker semaphore ttlMillis
 * leaseMillis.
 */
public final class LeaseHolderProcess {
  private LeaseHolderProcess() {}

  public static void main(String[] args) throws Exception {
    SemaforClient client =
        SemaforClient.builder()
            .addresses(args[0])
            .sessionTtl(Duration.ofMillis(Long.parseLong(args[3])))
            .clientName("lease-holder")
            .connect();
    client.semaphore(args[1]).acquirePermit(1);
    Lease lease =
        client
            .semaphore(args[2])
            .acquireLease(1, Duration.ofMillis(Long.parseLong(args[4])), Duration.ZERO);
    System.out.println("LEASE " + (lease == null ? 0 : lease.permitId()));
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // until killed
  }
}
