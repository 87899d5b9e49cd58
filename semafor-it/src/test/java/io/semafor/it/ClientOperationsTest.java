package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.SemaforSemaphore;
import io.semafor.client.SemaphoreInfo;
import io.semafor.client.Semop;
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

/**
 * Every operation of docs/semantics.md#operations through the Java client, against a real server
 * over 127.0.0.1.
 */
class ClientOperationsTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient client = semafor.client();
  private final SemaforClient other = semafor.newClient();

  @AfterEach
  void stop() {
    semafor.close();
  }

  @Test
  void listingLongNamesReadsEveryPageTheServersByteBudgetCutShort() {
    // 1,200 names of 1,000 bytes: a page of names stops at about 500 of them, with statuses at
    // about 240, so both lists take several pages that end before their limit
    List<String> created = new ArrayList<>();
    for (int i = 0; i < 1_200; i++) {
      String name = String.format("%04d", i) + "n".repeat(996);
      client.create(name, i % 3);
      created.add(name);
    }

    assertThat(client.list("")).containsExactlyElementsOf(created);
    assertThat(client.listSemaphores(""))
        .extracting(SemaphoreInfo::name)
        .containsExactlyElementsOf(created);
  }

  @Test
  void createSaysWhetherItCreatedAndOpensAnExistingOneUnchanged() {
    NamedSemaphore printers = client.semaphore("printers");
    assertThat(printers.create(3)).isTrue();
    assertThat(printers.create(9, SemaphoreOptions.DEFAULT.capacity(9))).isFalse();
    assertThat(printers.value()).isEqualTo(3);
    assertThat(printers.info().options()).isEqualTo(SemaphoreOptions.DEFAULT);
  }

  @Test
  void openFailsWithNotFoundWhenTheSemaphoreDoesNotExist() {
    assertThatThrownBy(() -> client.semaphore("nothing").open())
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
  }

  @Test
  void setIncrementAndValue() {
    NamedSemaphore x = client.create("x", 1);
    assertThat(x.increment(4)).isEqualTo(5);
    assertThat(x.set(2)).isEqualTo(5);
    assertThat(x.value()).isEqualTo(2);
  }

  @Test
  void incrementPastTheMaximumFailsWithOverflow() {
    NamedSemaphore x = client.create("x", Long.MAX_VALUE);
    assertThatThrownBy(() -> x.increment(1))
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OVERFLOW));
  }

  @Test
  void decrementTakesWhatIsThereAndWaitsAtZero() throws Exception {
    NamedSemaphore x = client.create("x", 2);
    assertThat(x.decrement(5, Duration.ZERO)).isEqualTo(2);
    CompletableFuture<Long> waiting = x.decrementAsync(3, Duration.ofSeconds(10));
    other.semaphore("x").increment(1);
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(1);
  }

  @Test
  void anInterruptedAcquireThrowsPromptlyAndIsWithdrawn() throws Exception {
    // a long TTL puts the next routine keep-alive (TTL / 3) well past the 2 s allowed here, so
    // only the client's nudge can wake the thread blocked reading the socket
    SemaforClient patient = semafor.newClient(Duration.ofSeconds(60));
    NamedSemaphore x = patient.create("x", 0);
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread blocked =
        new Thread(
            () -> {
              try {
                x.acquire(1);
                outcome.complete(new AssertionError("acquired a permit that was never there"));
              } catch (Throwable t) {
                outcome.complete(t);
              }
            });
    blocked.start();
    awaitQueued(x, 1);
    blocked.interrupt();
    assertThat(outcome.get(2, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(x.info().waiters()).isZero();
    x.increment(1);
    assertThat(x.value()).as("the withdrawn waiter took nothing").isEqualTo(1);
  }

  @Test
  void tryAcquireIsAllOrNothingAndTimesOutWithFalse() throws InterruptedException {
    NamedSemaphore x = client.create("x", 2);
    assertThat(x.tryAcquire(3, Duration.ofMillis(50))).isFalse();
    assertThat(x.value()).isEqualTo(2);
    assertThat(x.tryAcquire(2, Duration.ZERO)).isTrue();
    assertThat(x.value()).isZero();
  }

  @Test
  void aPermitReleasesWhenClosedAndCarriesSlotsAndAToken() throws InterruptedException {
    NamedSemaphore pool = client.create("pool", 3, SemaphoreOptions.DEFAULT.capacity(3));
    long firstToken;
    try (Permit permit = pool.acquirePermit(2)) {
      assertThat(permit.slots()).containsExactly(1L, 2L);
      firstToken = permit.token();
      assertThat(pool.value()).isEqualTo(1);
    }
    assertThat(pool.value()).isEqualTo(3);
    try (Permit next = pool.acquirePermit(1)) {
      assertThat(next.token()).isGreaterThan(firstToken);
      assertThat(next.slots()).containsExactly(1L);
    }
  }

  @Test
  void tryAcquirePermitGivesNullWhenItTimesOut() throws InterruptedException {
    NamedSemaphore x = client.create("x", 0);
    assertThat(x.tryAcquirePermit(1, Duration.ofMillis(20))).isNull();
  }

  @Test
  void maxPerSessionRefusesASecondPermitWithAlreadyHeld() throws InterruptedException {
    NamedSemaphore pool =
        client.create("pool", 3, SemaphoreOptions.DEFAULT.capacity(3).maxPerSession(1));
    try (Permit held = pool.acquirePermit(1)) {
      assertThat(held.amount()).isEqualTo(1);
      assertThatThrownBy(() -> pool.tryAcquirePermit(1, Duration.ZERO))
          .isInstanceOfSatisfying(
              SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_HELD));
    }
  }

  @Test
  void releasingMoreThanOwnedIsInvalidArgument() throws InterruptedException {
    NamedSemaphore x = client.create("x", 3);
    Permit permit = x.acquirePermit(1);
    assertThatThrownBy(() -> x.release(2))
        .isInstanceOfSatisfying(
            SemaforException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    permit.release();
    assertThat(x.value()).isEqualTo(3);
  }

  @Test
  void aLeaseCanBeRenewedAndReleasedByIdFromAnotherClient() throws InterruptedException {
    NamedSemaphore x = client.create("x", 1);
    Lease lease = x.acquireLease(1, Duration.ofSeconds(30), Duration.ZERO);
    assertThat(lease).isNotNull();
    assertThat(x.value()).isZero();
    Lease byId = other.lease(lease.permitId());
    assertThat(byId.renew(Duration.ofSeconds(60))).isGreaterThan(Duration.ofSeconds(59));
    assertThat(byId.release()).isTrue();
    assertThat(byId.release()).isFalse();
    assertThat(x.value()).isEqualTo(1);
  }

  @Test
  void aLeaseCarriesItsArrivalSequenceLikeAPermit() throws InterruptedException {
    NamedSemaphore x = client.create("x", 2);
    Permit first = x.acquirePermit(1);
    Lease lease = x.acquireLease(1, Duration.ofSeconds(30), Duration.ZERO);
    assertThat(lease).isNotNull();
    assertThat(lease.sequence()).isGreaterThan(first.sequence());
    assertThat(other.lease(lease.permitId()).sequence()).as("known by id only").isZero();
  }

  @Test
  void aLeaseCanBeWaitedForWithoutATimeout() throws Exception {
    NamedSemaphore x = client.create("x", 0);
    CompletableFuture<Lease> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return other.semaphore("x").acquireLease(1, Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> x.info().waiters() == 1);
    x.increment(1);
    assertThat(waiting.get(10, TimeUnit.SECONDS).amount()).isEqualTo(1);
  }

  @Test
  void aLeaseEndsByItselfAtItsTtl() throws InterruptedException {
    NamedSemaphore x = client.create("x", 1);
    x.acquireLease(1, Duration.ofMillis(100), Duration.ZERO);
    assertThat(x.decrement(1, Duration.ofSeconds(5))).isEqualTo(1);
  }

  @Test
  void awaitZeroWaitsUntilTheValueIsZero() throws Exception {
    NamedSemaphore x = client.create("x", 1);
    CompletableFuture<Boolean> zero = x.awaitZeroAsync(Duration.ofSeconds(10));
    assertThat(x.awaitZero(Duration.ZERO)).isFalse();
    other.semaphore("x").decrement(1, Duration.ZERO);
    assertThat(zero.get(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aSemopTakesFromSeveralSemaphoresAtomically() throws InterruptedException {
    client.create("printer", 1);
    client.create("scanner", 1);
    Semop.Result both =
        client.semop().take("printer", 1).owned().take("scanner", 1).owned().execute(Duration.ZERO);
    assertThat(both.done()).isTrue();
    Semop.Result again =
        client.semop().take("printer", 1).take("scanner", 1).execute(Duration.ofMillis(20));
    assertThat(again.done()).isFalse();
  }

  @Test
  void aNoWaitSemopThatWouldWaitFailsWithWouldBlock() {
    client.create("x", 0);
    assertThatThrownBy(() -> client.semop().take("x", 1).noWait().execute(Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.WOULD_BLOCK));
  }

  @Test
  void waitManyCallsBackEveryGrantedEntryAndReturnsHowMany() throws InterruptedException {
    client.create("a", 0);
    client.create("b", 2);
    List<String> calls = new ArrayList<>();
    WaitMany list = client.waitMany();
    list.add("a", 1, granted -> calls.add("a=" + granted));
    list.add("b", 5, granted -> calls.add("b=" + granted));
    assertThat(list.await(Duration.ofSeconds(5))).isEqualTo(1);
    assertThat(calls).containsExactly("b=2");
    other.semaphore("a").increment(3);
    assertThat(list.await(Duration.ofSeconds(5))).isEqualTo(1);
    assertThat(calls).containsExactly("b=2", "a=1");
    assertThat(list.await(Duration.ofMillis(20))).isZero();
  }

  @Test
  void aWaitManyCallbackThatThrowsDoesNotKeepTheOthersFromTheirGrants() throws Exception {
    client.create("a", 1);
    client.create("b", 1);
    List<String> calls = new ArrayList<>();
    WaitMany list = client.waitMany();
    list.add(
        "a",
        1,
        granted -> {
          calls.add("a=" + granted);
          throw new IllegalStateException("the caller's bug");
        });
    list.add("b", 1, granted -> calls.add("b=" + granted));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                other.semaphore("a").info().value() == 0
                    && other.semaphore("b").info().value() == 0);

    assertThatThrownBy(() -> list.await(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the caller's bug");
    assertThat(calls).containsExactlyInAnyOrder("a=1", "b=1");
    assertThat(list.size()).as("both were reported, so both left the list").isZero();
  }

  @Test
  void deletingASemaphoreFailsItsWaitersWithDeleted() {
    NamedSemaphore x = client.create("x", 0);
    CompletableFuture<Boolean> waiting = x.acquireAsync(1, Duration.ofSeconds(30));
    awaitQueued(x, 1); // else the delete may come first and the acquire find NOT_FOUND
    other.semaphore("x").delete();
    assertThat(waiting)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableThat()
        .havingCause()
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DELETED));
  }

  @Test
  void inspectShowsTheQueueTheHoldersAndTheLeases() throws Exception {
    NamedSemaphore x = client.create("x", 2, SemaphoreOptions.DEFAULT.capacity(3));
    x.acquirePermit(1);
    x.acquireLease(1, Duration.ofSeconds(30), Duration.ZERO);
    CompletableFuture<Optional<Permit>> waiting =
        other.semaphore("x").acquirePermitAsync(2, Duration.ofSeconds(30));
    SemaphoreInfo info = awaitQueued(x, 1);
    assertThat(info.holderList())
        .extracting(SemaphoreInfo.Holder::slots)
        .containsExactly(List.of(1L));
    assertThat(info.leases()).hasSize(1);
    assertThat(info.queue().get(0).kind()).isEqualTo("acquire-owned");
    assertThat(info.queue().get(0).amount()).isEqualTo(2);
    assertThat(waiting).isNotDone();
  }

  private static SemaphoreInfo awaitQueued(NamedSemaphore x, int waiters) {
    return await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(x::inspect, info -> info.queue().size() == waiters);
  }

  @Test
  void listGivesNamesWithAPrefixInOrder() {
    client.create("jobs/b", 0);
    client.create("jobs/a", 0);
    client.create("other", 0);
    assertThat(client.list("jobs/")).containsExactly("jobs/a", "jobs/b");
  }

  @Test
  void theJdkAdapterIsASemaphoreThatReleasesOwnedPermitsFirst() throws InterruptedException {
    client.create("jdk", 2);
    SemaforSemaphore semaphore = client.jdkSemaphore("jdk");
    java.util.concurrent.Semaphore asJdk = semaphore;
    asJdk.acquire();
    assertThat(asJdk.availablePermits()).isEqualTo(1);
    assertThat(asJdk.tryAcquire(2, 20, TimeUnit.MILLISECONDS)).isFalse();
    asJdk.release(2); // one owned paid back, one added
    assertThat(asJdk.availablePermits()).isEqualTo(3);
    assertThat(asJdk.isFair()).isTrue();
  }

  @Test
  void closingTheClientGivesBackWhatItsSessionOwns() throws InterruptedException {
    NamedSemaphore x = client.create("x", 2);
    SemaforClient holder = semafor.newClient();
    holder.semaphore("x").acquirePermit(2);
    assertThat(x.value()).isZero();
    holder.close();
    assertThat(x.value()).isEqualTo(2);
  }

  @Test
  void manyThreadsShareOneClient() throws Exception {
    NamedSemaphore x = client.create("x", 0);
    int threads = 8;
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                for (int i = 0; i < 200; i++) {
                  x.increment(1);
                }
              });
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join(30_000);
    }
    assertThat(x.value()).isEqualTo(threads * 200L);
  }
}
