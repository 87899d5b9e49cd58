package io.semafor.core;

import static io.semafor.core.Harness.DEFAULT_TTL;
import static io.semafor.core.Harness.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The stories of the seed documents (shared/seeds), told step by step against the machine. The IRIS
 * 18-step WaitMany example is in {@link WaitManyTest}.
 */
class SeedStoriesTest {

  /**
   * The PHP/SysV seed: a resource with 10 permits; readers take 1, the writer takes all 10. With
   * FIFO grants the writer is not starved by readers that come after it.
   */
  @Nested
  class SysvWriterAndReaders {
    private final Harness h = new Harness();
    private final TestClient admin = h.connect();

    private long take(TestClient client, long n) {
      return client.semop(Operation.FOREVER, SemopOp.of("rw", -n).withOwned());
    }

    private void giveBack(TestClient client, long n) {
      client.semop(0, SemopOp.of("rw", n).withOwned());
    }

    private boolean done(TestClient client, long id) {
      return !client.waiting(id) && ((Result.SemopDone) client.result(id)).done();
    }

    @Test
    void underFifoTheWriterIsServedBeforeReadersThatCameAfterIt() {
      // 1. The semaphore is initialised to 10.
      admin.create("rw", 10, SemaphoreOptions.withCapacity(10));
      // 2. A few readers take 1 each: 7 left.
      List<TestClient> readers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        TestClient reader = h.connect();
        take(reader, 1);
        readers.add(reader);
      }
      assertThat(h.value("rw")).isEqualTo(7);
      // 3-4. The writer asks for 10 and waits.
      TestClient writer = h.connect();
      long write = take(writer, 10);
      assertThat(writer.waiting(write)).isTrue();
      // 5-6. Two readers finish: 9, and the writer still waits.
      giveBack(readers.get(0), 1);
      giveBack(readers.get(1), 1);
      assertThat(h.value("rw")).isEqualTo(9);
      assertThat(writer.waiting(write)).isTrue();
      // 7. Other readers come along: under FIFO they queue behind the writer instead of passing.
      TestClient late = h.connect();
      long lateRead = take(late, 1);
      assertThat(late.waiting(lateRead)).isTrue();
      // 8-9. The last reader finishes: 10, and the writer takes all of it.
      giveBack(readers.get(2), 1);
      assertThat(done(writer, write)).isTrue();
      assertThat(h.value("rw")).isZero();
      // 10. A reader that arrives now waits.
      assertThat(late.waiting(lateRead)).isTrue();
      // 11-12. The writer gives the 10 back and the readers resume.
      giveBack(writer, 10);
      assertThat(done(late, lateRead)).isTrue();
      assertThat(h.value("rw")).isEqualTo(9);
    }

    @Test
    void underBargingLaterReadersMayPassTheWaitingWriter() {
      admin.create("rw", 10, SemaphoreOptions.withCapacity(10).policy(Policy.BARGING));
      TestClient reader = h.connect();
      take(reader, 1);
      TestClient writer = h.connect();
      long write = take(writer, 10);

      TestClient late = h.connect();
      long lateRead = take(late, 1);

      assertThat(done(late, lateRead)).isTrue();
      assertThat(writer.waiting(write)).isTrue();
      giveBack(late, 1);
      giveBack(reader, 1);
      assertThat(done(writer, write)).isTrue();
    }

    @Test
    void theWriterHoldsNothingWhileItWaits() {
      admin.create("rw", 10, SemaphoreOptions.withCapacity(10));
      TestClient reader = h.connect();
      take(reader, 1);
      TestClient writer = h.connect();
      take(writer, 10);
      assertThat(h.value("rw")).isEqualTo(9);
      assertThat(h.status("rw").owned()).isEqualTo(1);
    }
  }

  /**
   * The SQL Server app-lock seed: a counting semaphore of 3 built from slots; each of four windows
   * acquires; the fourth waits until a slot is released or a window is closed, and a session holds
   * at most one slot.
   */
  @Nested
  class AppLockFourWindows {
    private final Harness h = new Harness();
    private final TestClient admin = h.connect();
    private final SemaphoreOptions countingSemaphore =
        SemaphoreOptions.withCapacity(3).maxPerSession(1);

    private long acquire(TestClient window) {
      return window.acquireOwned("CountingSemaphore", 1, Operation.FOREVER);
    }

    private List<Long> slots(TestClient window, long id) {
      return window.granted(id).slots();
    }

    @Test
    void threeWindowsGetSlotsOneTwoThreeAndTheFourthWaits() {
      admin.create("CountingSemaphore", 3, countingSemaphore);
      TestClient[] windows = {h.connect(), h.connect(), h.connect(), h.connect()};
      long[] ids = new long[4];
      for (int i = 0; i < 4; i++) {
        ids[i] = acquire(windows[i]);
      }
      assertThat(slots(windows[0], ids[0])).containsExactly(1L);
      assertThat(slots(windows[1], ids[1])).containsExactly(2L);
      assertThat(slots(windows[2], ids[2])).containsExactly(3L);
      assertThat(windows[3].waiting(ids[3])).isTrue();
    }

    @Test
    void releasingASlotLetsTheFourthWindowHaveIt() {
      admin.create("CountingSemaphore", 3, countingSemaphore);
      TestClient[] windows = {h.connect(), h.connect(), h.connect(), h.connect()};
      long[] ids = new long[4];
      for (int i = 0; i < 4; i++) {
        ids[i] = acquire(windows[i]);
      }
      // exec ReleaseSemaphore 'CountingSemaphore', 2
      windows[1].releaseSlot("CountingSemaphore", 2);
      assertThat(slots(windows[3], ids[3])).containsExactly(2L);
    }

    @Test
    void closingAWindowReleasesItsSlot() {
      admin.create("CountingSemaphore", 3, countingSemaphore);
      TestClient[] windows = {h.connect(), h.connect(), h.connect(), h.connect()};
      long[] ids = new long[4];
      for (int i = 0; i < 4; i++) {
        ids[i] = acquire(windows[i]);
      }
      windows[0].close();
      assertThat(slots(windows[3], ids[3])).containsExactly(1L);
    }

    @Test
    void aBrokenConnectionReleasesTheSlotOnceItsSessionExpires() {
      admin.create("CountingSemaphore", 3, countingSemaphore);
      TestClient[] windows = {h.connect(), h.connect(), h.connect(), h.connect()};
      long[] ids = new long[4];
      for (int i = 0; i < 4; i++) {
        ids[i] = acquire(windows[i]);
      }
      h.advance(DEFAULT_TTL);
      windows[3].acknowledge(); // the waiting window stays alive
      h.expireSession(windows[2]);
      assertThat(slots(windows[3], ids[3])).containsExactly(3L);
    }

    @Test
    void aWindowThatHoldsASlotCannotAcquireASecond() {
      // "You have acquired semaphore"
      admin.create("CountingSemaphore", 3, countingSemaphore);
      TestClient window = h.connect();
      acquire(window);
      Result.Failure failure = (Result.Failure) window.result(acquire(window));
      assertThat(failure.code()).isEqualTo(ErrorCode.ALREADY_HELD);
      assertThat(h.value("CountingSemaphore")).isEqualTo(2);
    }
  }

  /**
   * The Redis seed: on Redis, a client with a slow clock can steal a permit and holders can time
   * out early or late. Here nothing a client's clock says is even part of a command: order is
   * arrival at the machine, time is log time.
   */
  @Nested
  class RedisClockSkew {
    private final Harness h = new Harness();
    private final TestClient admin = h.connect();

    @Test
    void aClientWhoseClockIsBehindCannotStealAPermitFromEarlierArrivals() {
      admin.create("fair", 2);
      TestClient fastClock = h.connect(); // its clock reads 1326437040.1
      TestClient slowClock = h.connect(); // its clock reads 1326437039.1
      TestClient first = h.connect();
      first.acquireLease("fair", 1, 10 * SECOND, 0);
      fastClock.acquireLease("fair", 1, 10 * SECOND, 0);

      long stolen = slowClock.acquireLease("fair", 1, 10 * SECOND, 0);

      assertThat(((Result.LeaseGranted) slowClock.result(stolen)).granted()).isFalse();
      long queued = slowClock.acquireLease("fair", 1, 10 * SECOND, Operation.FOREVER);
      assertThat(slowClock.waiting(queued)).isTrue();
    }

    @Test
    void aHolderTimesOutExactlyItsTtlAfterTheGrantInLogTimeNeitherEarlyNorLate() {
      admin.create("fair", 1);
      TestClient holder = h.connect();
      long permit =
          ((Result.LeaseGranted) holder.result(holder.acquireLease("fair", 1, 10 * SECOND, 0)))
              .permitId();
      h.advance(10 * SECOND - 1);
      assertThat(h.expireLease(permit)).isEqualTo(new Result.Expiry(false));
      h.advance(1);
      assertThat(h.expireLease(permit)).isEqualTo(new Result.Expiry(true));
      assertThat(h.value("fair")).isEqualTo(1);
    }

    @Test
    void waitersAreOrderedByTheCounterOfArrivalNotByAnyTimestamp() {
      admin.create("fair", 0);
      List<TestClient> clients = new ArrayList<>();
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        TestClient client = h.connect();
        clients.add(client);
        ids.add(client.acquire("fair", 1, Operation.FOREVER));
        h.advance(i % 2 == 0 ? SECOND : 0);
      }
      admin.increment("fair", 5);
      List<Long> sequences = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sequences.add(clients.get(i).granted(ids.get(i)).sequence());
      }
      assertThat(sequences).isSorted();
    }
  }
}
