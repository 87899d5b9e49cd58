package io.semafor.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.client.SemaforClient;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every example runs against a real server and does what its comment says. */
class ExamplesTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient client = semafor.client();

  @AfterEach
  void stop() {
    semafor.close();
  }

  @Test
  void limitConcurrentJobsNeverRunsMoreThanTheLimit() throws Exception {
    assertThat(LimitConcurrentJobs.run(client, "jobs", 3, 10)).isBetween(1, 3);
  }

  @Test
  void producerWorkersDoEveryTaskOnce() throws Exception {
    assertThat(ProducerWorkers.run(client, "ready", 3, 20)).isEqualTo(20);
  }

  @Test
  void aWriterAmongBusyReadersGetsInWithinAFewReads() throws Exception {
    Duration waited = ReadersWriterLock.run(client, "rw", 4, Duration.ofSeconds(1));
    // readers hold for 20 ms each: the writer waits for those already in, not for later ones
    assertThat(waited).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void namedSlotsHandOutDistinctSlotsAndReuseTheFreedOne() throws Exception {
    List<Long> slots = NamedSlots.run(semafor.address(), client, "windows", 4);
    assertThat(slots.subList(0, 4)).doesNotHaveDuplicates();
    assertThat(slots.get(4)).isEqualTo(slots.get(1));
  }

  @Test
  void waitForAnyHandlesTheGrantedSemaphoresThroughTheirCallbacks() throws Exception {
    List<String> handled = WaitForAny.run(client, "alerts");
    assertThat(handled).containsExactlyInAnyOrder("alerts/cpu x2", "alerts/net x1");
  }

  @Test
  void multiResourceJobsRespectTheScarcestResource() throws Exception {
    assertThat(MultiResourceJobs.run(client, "rig", 8)).isBetween(1, 2);
  }
}
