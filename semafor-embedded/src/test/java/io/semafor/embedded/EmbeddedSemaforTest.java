package io.semafor.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import org.junit.jupiter.api.Test;

class EmbeddedSemaforTest {

  @Test
  void anEmbeddedServerServesItsClientsLikeARemoteOne() throws InterruptedException {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start()) {
      NamedSemaphore jobs = semafor.client().create("jobs", 2);
      SemaforClient other = semafor.newClient();
      try (Permit permit = other.semaphore("jobs").acquirePermit(1)) {
        assertThat(permit.amount()).isEqualTo(1);
        assertThat(jobs.value()).isEqualTo(1);
      }
      assertThat(jobs.value()).isEqualTo(2);
      assertThat(semafor.address()).startsWith("127.0.0.1:");
    }
  }

  @Test
  void closingItClosesEverySessionItHandedOut() {
    EmbeddedSemafor semafor = EmbeddedSemafor.start();
    semafor.newClient();
    semafor.newClient();
    assertThat(semafor.server().sessionCount()).isEqualTo(3);
    semafor.close();
    assertThat(semafor.server().connectionCount()).isZero();
  }
}
