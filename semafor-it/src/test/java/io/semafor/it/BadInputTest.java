package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.embedded.EmbeddedSemafor;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input of every kind gets a clear error with its code and changes nothing, and the server
 * keeps serving everyone else while it happens (docs/semantics.md#errors).
 */
class BadInputTest {
  private final EmbeddedSemafor semafor = EmbeddedSemafor.start();
  private final SemaforClient client = semafor.client();

  @AfterEach
  void stop() {
    semafor.close();
  }

  private static void refused(ErrorCode code, String argument, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            SemaforException.class,
            e -> {
              assertThat(e.code()).isEqualTo(code);
              assertThat(e.getMessage()).contains(argument);
            });
  }

  @Test
  void badArgumentsAreRefusedNamingTheArgumentAndChangeNothing() {
    NamedSemaphore x = client.create("x", 2, SemaphoreOptions.DEFAULT.capacity(3));
    refused(ErrorCode.INVALID_ARGUMENT, "amount", () -> x.increment(0));
    refused(ErrorCode.INVALID_ARGUMENT, "amount", () -> x.increment(-5));
    refused(ErrorCode.INVALID_ARGUMENT, "amount", () -> x.tryAcquire(4, Duration.ZERO));
    refused(ErrorCode.INVALID_ARGUMENT, "value", () -> x.set(-1));
    refused(ErrorCode.OVERFLOW, "capacity", () -> x.increment(2));
    refused(
        ErrorCode.INVALID_ARGUMENT,
        "initial",
        () -> client.create("y", 5, SemaphoreOptions.DEFAULT.capacity(2)));
    refused(ErrorCode.INVALID_ARGUMENT, "name", () -> client.create("", 1));
    refused(ErrorCode.INVALID_ARGUMENT, "name", () -> client.create("n".repeat(1025), 1));
    refused(ErrorCode.NOT_FOUND, "name", () -> client.semaphore("nothing").increment(1));
    refused(ErrorCode.INVALID_ARGUMENT, "amount", () -> x.release(1));
    refused(ErrorCode.INVALID_ARGUMENT, "ops", () -> client.semop().execute(Duration.ZERO));
    refused(
        ErrorCode.NOT_FOUND,
        "ops[1].name",
        () -> client.semop().take("x", 1).take("nothing", 1).execute(Duration.ZERO));
    refused(
        ErrorCode.NOT_FOUND, "permitId", () -> client.lease(12345).renew(Duration.ofSeconds(1)));
    assertThat(x.value()).isEqualTo(2);
    assertThat(client.list("")).containsExactly("x");
  }

  @Test
  void aSessionTtlOutsideTheServersBoundsIsRefusedAtConnect() {
    refused(
        ErrorCode.INVALID_ARGUMENT,
        "sessionTtl",
        () ->
            SemaforClient.builder()
                .addresses(semafor.address())
                .sessionTtl(Duration.ofDays(3))
                .connect());
  }

  @Test
  void garbageFromOtherConnectionsNeverDisturbsAWellBehavedClient() throws Exception {
    NamedSemaphore x = client.create("x", 0);
    AtomicLong served = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    Thread good =
        new Thread(
            () -> {
              try {
                while (done.getCount() > 0) {
                  x.increment(1);
                  x.decrement(1, Duration.ZERO);
                  served.incrementAndGet();
                }
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    good.start();
    InetSocketAddress address = semafor.server().address();
    Random random = new Random(42);
    for (int i = 0; i < 200; i++) {
      try (Socket s = new Socket(address.getAddress(), address.getPort())) {
        s.setSoTimeout(2_000);
        OutputStream out = s.getOutputStream();
        byte[] junk = new byte[1 + random.nextInt(64)];
        random.nextBytes(junk);
        switch (i % 4) {
          case 0 -> out.write(junk); // random bytes
          case 1 ->
              out.write(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // 2 GiB frame
          case 2 -> out.write(new byte[] {0, 0, 0, 8, 1, 2}); // a frame that never ends
          default -> {
            out.write(new byte[] {0, 0, 0, (byte) junk.length});
            out.write(junk); // a frame that is not a ClientFrame
          }
        }
        out.flush();
        if (i % 4 != 2) {
          InputStream in = s.getInputStream();
          while (in.read() >= 0) {
            // until the server closes it
          }
        }
      } catch (java.net.SocketTimeoutException | java.net.SocketException expected) {
        // the server may close before or after answering with Fatal
      }
    }
    long before = served.get();
    Thread.sleep(100);
    done.countDown();
    good.join(10_000);
    assertThat(failure.get()).isNull();
    assertThat(served.get()).isGreaterThan(before);
    assertThat(x.value()).isZero();
  }
}
