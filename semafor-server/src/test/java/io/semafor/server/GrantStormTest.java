package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.Acquire;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.ServerFrame;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A change that serves a very long queue at once (an increment by 40,000 with 40,000 waiting) is
 * handed out in slices with other clients' requests applied in between, in the same grant order.
 * Revisions say what was applied when: a request of another client sent once the increment was
 * answered must be applied before the last grant of the storm. Figures: docs/benchmarks.md, "Grant
 * storms" ({@code -Dstorm.waiters=100000} for the full size).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrantStormTest {
  private static final int PER_SESSION = 4_000;
  private static final int WAITERS = Integer.getInteger("storm.waiters", 40_000);

  private SemaforServer server;

  @BeforeEach
  void start() throws InterruptedException {
    server = SemaforServer.start(ServerConfig.builder().port(0).build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private WireClient connect() throws IOException {
    WireClient client = new WireClient(server.address());
    client.socket.setSoTimeout(60_000);
    // no keep-alives here: a TTL longer than the test, so no waiter's session ends meanwhile
    assertThat(client.hello(0, Duration.ofMinutes(5).toNanos()).hasFailure()).isFalse();
    return client;
  }

  private static Request.Builder increment(String name, long amount) {
    return Request.newBuilder()
        .setIncrement(Increment.newBuilder().setName(name(name)).setAmount(amount));
  }

  @Test
  void anotherClientIsServedWhileALongQueueIsGrantedAndGrantsKeepTheirOrder() throws Exception {
    List<WireClient> waiters = new ArrayList<>();
    try (WireClient producer = connect();
        WireClient other = connect()) {
      producer.call(Request.newBuilder().setCreate(Create.newBuilder().setName(name("queue"))));
      producer.call(Request.newBuilder().setCreate(Create.newBuilder().setName(name("other"))));
      for (int queued = 0; queued < WAITERS; queued += PER_SESSION) {
        WireClient waiter = connect();
        waiters.add(waiter);
        waiter.sendRaw(acquires(Math.min(PER_SESSION, WAITERS - queued)));
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> producer.status("queue").getWaiters() == WAITERS);

      Response storm = producer.call(increment("queue", WAITERS));
      Response meanwhile = other.call(increment("other", 1));

      long lastGrantRevision = 0;
      List<long[]> grants = new ArrayList<>(); // [sequence, revision]
      for (int w = 0; w < waiters.size(); w++) {
        int expected = Math.min(PER_SESSION, WAITERS - w * PER_SESSION);
        for (int i = 0; i < expected; i++) {
          ServerFrame frame = waiters.get(w).receive();
          assertThat(frame.getResponse().getGranted().getAmount()).isEqualTo(1);
          grants.add(
              new long[] {
                frame.getResponse().getGranted().getSequence(), frame.getResponse().getRevision()
              });
          lastGrantRevision = Math.max(lastGrantRevision, frame.getResponse().getRevision());
        }
      }
      grants.sort((a, b) -> Long.compare(a[0], b[0]));
      long previousRevision = 0;
      for (long[] g : grants) {
        assertThat(g[1])
            .as("the grant to arrival %d came no earlier than those to earlier arrivals", g[0])
            .isGreaterThanOrEqualTo(previousRevision);
        previousRevision = g[1];
      }
      assertThat(grants).hasSize(WAITERS);
      assertThat(meanwhile.getRevision())
          .as("the other client's increment was applied before the storm's last grant")
          .isGreaterThan(storm.getRevision())
          .isLessThan(lastGrantRevision);
      Response after = producer.call(increment("queue", 1));
      assertThat(after.getIncremented().getValue())
          .as("every permit went to a waiter: %s", after)
          .isEqualTo(1);
    } finally {
      for (WireClient w : waiters) {
        w.close();
      }
    }
  }

  private static byte[] acquires(int count) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 1; i <= count; i++) {
      Frames.write(
          bytes,
          ClientFrame.newBuilder()
              .setRequest(
                  Request.newBuilder()
                      .setId(i)
                      .setAcquire(
                          Acquire.newBuilder()
                              .setName(name("queue"))
                              .setAmount(1)
                              .setTimeoutNs(-1)))
              .build());
    }
    return bytes.toByteArray();
  }
}
