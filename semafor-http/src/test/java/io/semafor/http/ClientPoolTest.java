package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One client per token, shared, closed when idle (on a fake clock), never kept when refused. */
class ClientPoolTest {
  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger connects = new AtomicInteger();
  private final ExecutorService connector = Executors.newCachedThreadPool();

  @Test
  void aTokenSharesOneClientUntilItIsIdleWithNothingInFlight() throws Exception {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0))) {
      ClientPool pool =
          new ClientPool(
              token -> {
                connects.incrementAndGet();
                return SemaforClient.connect(semafor.address());
              },
              connector,
              now::get,
              Duration.ofSeconds(60));
      ClientPool.Entry a = pool.use("t");
      ClientPool.Entry b = pool.use("t");
      assertThat(b).isSameAs(a);
      SemaforClient client = a.client.get(5, TimeUnit.SECONDS);
      pool.done(a);
      now.addAndGet(Duration.ofSeconds(61).toNanos());
      assertThat(pool.closeIdle()).as("one request still in flight").isZero();
      pool.done(b);
      assertThat(pool.closeIdle()).as("just used").isZero();
      now.addAndGet(Duration.ofSeconds(61).toNanos());
      assertThat(pool.closeIdle()).isEqualTo(1);
      assertThat(pool.size()).isZero();
      ClientPool.Entry c = pool.use("t");
      assertThat(c.client.get(5, TimeUnit.SECONDS)).isNotSameAs(client);
      assertThat(connects).hasValue(2);
      pool.done(c);
      pool.close();
    } finally {
      connector.shutdownNow();
    }
  }

  @Test
  void aRefusedTokenIsNotKept() throws Exception {
    ClientPool pool =
        new ClientPool(
            token -> {
              connects.incrementAndGet();
              throw new SemaforException(ErrorCode.UNAUTHENTICATED, "token: not valid");
            },
            connector,
            now::get,
            Duration.ofSeconds(60));
    try {
      ClientPool.Entry a = pool.use("bad");
      assertThat(a.client).failsWithin(Duration.ofSeconds(5));
      pool.done(a);
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> pool.size() == 0);
      ClientPool.Entry b = pool.use("bad");
      assertThat(b).isNotSameAs(a);
      assertThat(b.client).failsWithin(Duration.ofSeconds(5));
      pool.done(b);
      assertThat(connects).hasValue(2);
    } finally {
      pool.close();
      connector.shutdownNow();
    }
  }
}
