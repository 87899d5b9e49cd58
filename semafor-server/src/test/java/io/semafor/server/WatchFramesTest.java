package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.watch.WatchEvent;
import io.semafor.server.wire.WireResults;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A watch event encoded by hand around a state encoded once (EncodedFrame) is the very frame the
 * generated code writes: clients cannot tell them apart.
 */
class WatchFramesTest {
  private static final long LOG_TIME = 5_000_000_000L;

  private static Result.SemaphoreStatus status(String name) {
    return new Result.SemaphoreStatus(
        Name.of(name), 3, SemaphoreOptions.withCapacity(8), 1, 1, 0, 2, 0, 0);
  }

  private static Result.SemaphoreDetail detail(String name) {
    return new Result.SemaphoreDetail(
        status(name),
        List.of(
            new Result.WaiterView(
                7, 9, 11, "acquire", 2, 9_000_000_000L, new ClientInfo("app", "host", 42))),
        List.of(new Result.HolderView(8, 2, List.of(1L, 2L), new ClientInfo("é", "h", 1))),
        List.of(),
        new Query.Position(11, 8, 0),
        false,
        false,
        false);
  }

  private static void assertSameFrame(long id, long revision, String name, Result state)
      throws Exception {
    WatchEvent.Changed event = new WatchEvent.Changed(id, revision, Name.of(name), state);
    byte[] byHand =
        WireResults.changedFrame(
            id, revision, Name.of(name), state, WireResults.watchedState(state, LOG_TIME));
    byte[] generated =
        ServerFrame.newBuilder()
            .setWatchEvent(WireResults.watchEvent(event, LOG_TIME))
            .build()
            .toByteArray();

    assertThat(byHand).isEqualTo(generated);
    assertThat(ServerFrame.parseFrom(byHand).getWatchEvent().getName().toStringUtf8())
        .isEqualTo(name);
  }

  @Test
  void aChangedDetailIsEncodedAsTheGeneratedCodeWouldEncodeIt() throws Exception {
    assertSameFrame(3, 1_234_567_890_123L, "printers/ä", detail("printers/ä"));
  }

  @Test
  void aChangedStatusIsEncodedAsTheGeneratedCodeWouldEncodeIt() throws Exception {
    assertSameFrame(1L << 40, 1, "p", status("p"));
  }

  @Test
  void zeroIdAndRevisionAreLeftOutAsProtobufLeavesOutDefaults() throws Exception {
    assertSameFrame(0, 0, "p", status("p"));
  }
}
