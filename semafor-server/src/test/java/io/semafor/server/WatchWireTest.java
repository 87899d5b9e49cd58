package io.semafor.server;

import static io.semafor.server.WireClient.name;
import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.ErrorCode;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Unwatch;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.WatchEvent;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Watches on the wire (docs/protocol.md "Watches", decision 0041), against a real server. */
class WatchWireTest {
  private SemaforServer server;

  @BeforeEach
  void start() throws InterruptedException {
    server =
        SemaforServer.start(
            ServerConfig.builder().port(0).defaultSessionTtl(Duration.ofSeconds(10)).build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private WireClient connect() throws IOException {
    WireClient client = new WireClient(server.address());
    assertThat(client.hello(0, 0).hasFailure()).isFalse();
    return client;
  }

  private static Request.Builder create(String name, long initial) {
    return Request.newBuilder()
        .setCreate(Create.newBuilder().setName(name(name)).setInitial(initial));
  }

  private static Request.Builder increment(String name) {
    return Request.newBuilder()
        .setIncrement(Increment.newBuilder().setName(name(name)).setAmount(1));
  }

  private static ClientFrame watch(long id, String name, boolean prefix, long after) {
    return ClientFrame.newBuilder()
        .setWatch(
            Watch.newBuilder()
                .setId(id)
                .setName(name(name))
                .setPrefix(prefix)
                .setAfterRevision(after))
        .build();
  }

  private static WatchEvent event(WireClient client) throws IOException {
    ServerFrame frame = client.receive();
    assertThat(frame.hasWatchEvent()).as("a watch event, not %s", frame).isTrue();
    return frame.getWatchEvent();
  }

  @Test
  void aWatcherIsToldTheStateThenEveryChangeAsItHappens() throws IOException {
    try (WireClient writer = connect();
        WireClient watcher = new WireClient(server.address())) {
      writer.call(create("printers", 2));
      watcher.send(watch(7, "printers", false, 0));

      WatchEvent first = event(watcher);
      assertThat(first.getKind()).isEqualTo(WatchEvent.Kind.CHANGED);
      assertThat(first.getDetail().getStatus().getValue()).isEqualTo(2);
      WatchEvent synced = event(watcher);
      assertThat(synced.getKind()).isEqualTo(WatchEvent.Kind.SYNCED);

      long revision = writer.call(increment("printers")).getRevision();
      WatchEvent changed = event(watcher);
      assertThat(changed.getKind()).isEqualTo(WatchEvent.Kind.CHANGED);
      assertThat(changed.getId()).isEqualTo(7);
      assertThat(changed.getRevision()).isEqualTo(revision);
      assertThat(changed.getDetail().getStatus().getValue()).isEqualTo(3);
    }
  }

  @Test
  void aWatcherBackFromADisconnectIsToldWhatChangedWhileItWasAway() throws IOException {
    try (WireClient writer = connect()) {
      writer.call(create("printers/a", 1));
      writer.call(create("printers/b", 1));
      long seen;
      try (WireClient watcher = new WireClient(server.address())) {
        watcher.send(watch(1, "printers/", true, 0));
        event(watcher);
        event(watcher);
        seen = event(watcher).getRevision(); // SYNCED
      }
      writer.call(increment("printers/b"));
      writer.call(increment("printers/b"));

      try (WireClient back = new WireClient(server.address())) {
        back.send(watch(1, "printers/", true, seen));
        WatchEvent changed = event(back);
        assertThat(changed.getName().toStringUtf8()).isEqualTo("printers/b");
        assertThat(changed.getDetail().getStatus().getValue()).isEqualTo(3);
        assertThat(event(back).getKind()).isEqualTo(WatchEvent.Kind.SYNCED);
      }
    }
  }

  @Test
  void aWatcherThatDoesNotReadIsCaughtUpWhenItDoesWithoutRepeats() throws IOException {
    int changes = 20_000;
    // a long name makes each event 2 KB: far more than the sockets and the server's queue hold
    String name = "p".repeat(1_000);
    try (WireClient writer = connect();
        WireClient watcher = new WireClient(server.address())) {
      writer.call(create(name, 0));
      watcher.send(watch(1, name, false, 0));
      long last = 0;
      for (int i = 0; i < changes; i++) {
        last = writer.call(increment(name)).getRevision(); // the watcher reads nothing
      }

      java.util.Set<Long> told = new java.util.HashSet<>();
      long revision = 0;
      long value = -1;
      int synced = 0;
      while (value != changes) {
        WatchEvent e = event(watcher);
        assertThat(e.getRevision()).as("revisions never go back").isGreaterThanOrEqualTo(revision);
        revision = e.getRevision();
        if (e.getKind() == WatchEvent.Kind.CHANGED) {
          assertThat(told.add(e.getRevision())).as("told twice: %s", e).isTrue();
          value = e.getDetail().getStatus().getValue();
        } else {
          assertThat(e.getKind()).isEqualTo(WatchEvent.Kind.SYNCED);
          synced++;
        }
      }
      assertThat(revision).isEqualTo(last);
      assertThat(told)
          .as("some changes were coalesced while it did not read")
          .hasSizeLessThan(changes);
      if (synced < 2) {
        assertThat(event(watcher).getKind()).isEqualTo(WatchEvent.Kind.SYNCED); // the catch-up's
      }
    }
  }

  @Test
  void anUnwatchedWatchIsToldNothingMore() throws IOException {
    try (WireClient writer = connect();
        WireClient watcher = connect()) {
      writer.call(create("printers", 2));
      watcher.send(watch(3, "printers", false, 0));
      event(watcher);
      event(watcher);

      watcher.send(ClientFrame.newBuilder().setUnwatch(Unwatch.newBuilder().setId(3)).build());
      assertThat(watcher.status("printers").getValue()).isEqualTo(2); // the Unwatch has arrived
      writer.call(increment("printers"));
      // a status read on the same connection comes next: no event was queued before it
      assertThat(watcher.status("printers").getValue()).isEqualTo(3);
    }
  }

  @Test
  void aWatchWithABadLimitFailsNamingIt() throws IOException {
    try (WireClient watcher = new WireClient(server.address())) {
      watcher.send(
          ClientFrame.newBuilder()
              .setWatch(Watch.newBuilder().setId(4).setName(name("x")).setLimit(5_000))
              .build());

      WatchEvent failed = event(watcher);
      assertThat(failed.getKind()).isEqualTo(WatchEvent.Kind.FAILED);
      assertThat(failed.getFailure().getCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(failed.getFailure().getMessage()).startsWith("limit:");
    }
  }

  @Test
  void aSecondWatchUnderARunningIdFails() throws IOException {
    try (WireClient watcher = new WireClient(server.address())) {
      watcher.send(watch(5, "x", false, 0));
      event(watcher); // SYNCED: no semaphore x yet
      watcher.send(watch(5, "y", false, 0));

      WatchEvent failed = event(watcher);
      assertThat(failed.getKind()).isEqualTo(WatchEvent.Kind.FAILED);
      assertThat(failed.getFailure().getMessage()).contains("already running");
    }
  }

  @Test
  void aConnectionThatOnlyWatchesOutlivesTheHelloAndIdleTimeouts() throws Exception {
    ClientLimits d = ClientLimits.DEFAULT;
    SemaforServer strict =
        SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .clientLimits(
                    new ClientLimits(
                        d.maxConnections(),
                        d.maxConnectionsPerClient(),
                        d.maxSessionsPerClient(),
                        Duration.ofMillis(300), // helloTimeout
                        d.frameTimeout(),
                        Duration.ofMillis(300), // idleTimeout
                        d.maxPendingFrameBytes(),
                        d.maxUnreadBytes()))
                .build());
    try (WireClient writer = new WireClient(strict.address());
        WireClient watcher = new WireClient(strict.address())) {
      assertThat(writer.hello(0, 0).hasFailure()).isFalse();
      writer.call(create("printers", 1));
      watcher.send(watch(1, "printers", false, 0));
      event(watcher);
      event(watcher);

      Thread.sleep(1_500); // five times either timeout, with nothing sent on the watch
      long revision = writer.call(increment("printers")).getRevision();

      WatchEvent changed = event(watcher);
      assertThat(changed.getRevision()).isEqualTo(revision);
      assertThat(changed.getDetail().getStatus().getValue()).isEqualTo(2);
    } finally {
      strict.close();
    }
  }
}
