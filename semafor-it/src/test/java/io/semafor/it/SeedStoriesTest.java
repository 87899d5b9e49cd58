package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.WaitMany;
import io.semafor.embedded.EmbeddedSemafor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The seed documents' stories again, this time through the client over real sockets. */
class SeedStoriesTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient job = semafor.client();
  private final SemaforClient setter = semafor.newClient();

  @AfterEach
  void stop() {
    semafor.close();
  }

  @Test
  void theIrisEighteenStepWaitManyExample() throws InterruptedException {
    NamedSemaphore a = job.create("A", 0); // 1
    NamedSemaphore s = setter.semaphore("A");
    List<Long> reported = new ArrayList<>();
    WaitMany list = job.waitMany();
    list.add("A", 4, reported::add); // 2
    list.add("A", 1, reported::add); // 3: merged, 5
    s.set(4); // 4, 5: 4 granted
    assertThat(list.await(Duration.ZERO)).isEqualTo(1); // 6
    assertThat(reported).containsExactly(4L);
    s.set(1); // 7
    list.add("A", 3, reported::add); // 8, 9: 1 granted
    list.add("A", 4, reported::add); // 10: waits
    assertThat(list.await(Duration.ZERO)).isEqualTo(1); // 11: reports 1, pending 4 cancelled
    assertThat(reported).containsExactly(4L, 1L);
    s.set(1); // 12
    list.add("A", 3, reported::add); // 13, 14: 1 granted
    list.add("A", 4, reported::add); // 15: waits
    s.set(5); // 16, 17: 4 granted
    assertThat(list.await(Duration.ZERO)).isEqualTo(1); // 18: reports 5
    assertThat(reported).containsExactly(4L, 1L, 5L);
    assertThat(a.value()).isEqualTo(1);
  }

  @Test
  void theSysvWriterIsNotStarvedByReadersThatCameAfterIt() throws Exception {
    NamedSemaphore rw = job.create("rw", 10, SemaphoreOptions.DEFAULT.capacity(10));
    List<Permit> readers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      readers.add(semafor.newClient().semaphore("rw").acquirePermit(1));
    }
    SemaforClient writerClient = semafor.newClient();
    CompletableFuture<Optional<Permit>> writer =
        writerClient.semaphore("rw").acquirePermitAsync(10, Duration.ofSeconds(30));
    while (rw.info().waiters() == 0) {
      Thread.sleep(5);
    }
    CompletableFuture<Optional<Permit>> lateReader =
        semafor.newClient().semaphore("rw").acquirePermitAsync(1, Duration.ofSeconds(30));
    Thread.sleep(50);
    assertThat(lateReader).isNotDone(); // queued behind the writer, not passing it
    for (Permit reader : readers) {
      reader.release();
    }
    Permit writing = writer.get(10, TimeUnit.SECONDS).orElseThrow();
    assertThat(rw.value()).isZero();
    assertThat(lateReader).isNotDone();
    writing.release();
    assertThat(lateReader.get(10, TimeUnit.SECONDS)).isPresent();
  }

  @Test
  void theAppLockFourWindowsGetSlotsOneAtATimeAndTheFourthWaits() throws Exception {
    job.create("CountingSemaphore", 3, SemaphoreOptions.DEFAULT.capacity(3).maxPerSession(1));
    List<Permit> held = new ArrayList<>();
    for (int w = 1; w <= 3; w++) {
      Permit permit = semafor.newClient().semaphore("CountingSemaphore").acquirePermit(1);
      assertThat(permit.slots()).containsExactly((long) w);
      held.add(permit);
    }
    SemaforClient fourth = semafor.newClient();
    CompletableFuture<Optional<Permit>> waiting =
        fourth.semaphore("CountingSemaphore").acquirePermitAsync(1, Duration.ofSeconds(30));
    Thread.sleep(50);
    assertThat(waiting).isNotDone();
    try {
      held.get(0).semaphore().acquirePermit(1);
      throw new AssertionError("a window holding a slot got a second one");
    } catch (SemaforException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_HELD);
    }
    held.get(1).release(); // exec ReleaseSemaphore 'CountingSemaphore', 2
    assertThat(waiting.get(10, TimeUnit.SECONDS).orElseThrow().slots()).containsExactly(2L);
  }

  @Test
  void theRedisStoryPermitsGoInArrivalOrderWhateverAnyClockSays() throws Exception {
    NamedSemaphore fair = job.create("fair", 0);
    List<CompletableFuture<Optional<Permit>>> waiting = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiting.add(
          semafor.newClient().semaphore("fair").acquirePermitAsync(1, Duration.ofSeconds(30)));
      while (fair.info().waiters() < i + 1) {
        Thread.sleep(2);
      }
    }
    fair.increment(5);
    long previous = 0;
    for (CompletableFuture<Optional<Permit>> w : waiting) {
      long sequence = w.get(10, TimeUnit.SECONDS).orElseThrow().sequence();
      assertThat(sequence).isGreaterThan(previous);
      previous = sequence;
    }
  }
}
