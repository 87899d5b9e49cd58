package io.semafor.server;

import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.fuzz.SeedFiles;
import io.semafor.fuzz.Story;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.SnapshotRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the seeds of {@link FrameDecoderFuzzTest} (one frame of every {@code ClientFrame} kind and
 * request kind, and all of them in one stream) and of {@link RequestPathFuzzTest} (per operation
 * and query a stream that says Hello, creates the story's semaphores and then does it; and the
 * whole story with keep-alives and a snapshot). Runs only with {@code
 * -Dsemafor.fuzz.writeSeeds=true}.
 */
@EnabledIfSystemProperty(named = SeedFiles.PROPERTY, matches = "true")
class FrameSeedsTest {
  private static final ClientFrame HELLO =
      ClientFrame.newBuilder()
          .setHello(
              Hello.newBuilder()
                  .setProtocolVersion(Frames.PROTOCOL_VERSION)
                  .setSessionTtlNs(Duration.ofSeconds(10).toNanos())
                  .setClientName("seed")
                  .setClientHost("localhost")
                  .setClientPid(42))
          .build();

  @Test
  void writeSeeds() throws IOException {
    List<ClientFrame> story = setup();
    for (Operation op : Story.OPERATIONS) {
      ClientFrame frame = request(setup().size(), op);
      seed(FrameDecoderFuzzTest.class, "frames", "op-" + op.getClass().getSimpleName(), frame);
      List<ClientFrame> frames = setup();
      frames.add(frame);
      seed(RequestPathFuzzTest.class, "requests", "op-" + op.getClass().getSimpleName(), frames);
      story.add(request(story.size(), op));
      story.add(keepAlive(story.size() - 1));
    }
    int n = 0;
    for (Query q : Story.QUERIES) {
      ClientFrame frame = ClientFrame.newBuilder().setRead(WireForm.read(1, q)).build();
      String name = "read-" + n + "-" + q.getClass().getSimpleName();
      n++;
      seed(FrameDecoderFuzzTest.class, "frames", name, frame);
      List<ClientFrame> frames = setup();
      frames.add(frame);
      seed(RequestPathFuzzTest.class, "requests", name, frames);
      story.add(frame);
    }
    ClientFrame snapshot =
        ClientFrame.newBuilder().setSnapshot(SnapshotRequest.newBuilder().setId(1)).build();
    seed(FrameDecoderFuzzTest.class, "frames", "hello", HELLO);
    seed(FrameDecoderFuzzTest.class, "frames", "keep-alive", keepAlive(1));
    seed(FrameDecoderFuzzTest.class, "frames", "snapshot", snapshot);
    story.add(snapshot);
    seed(FrameDecoderFuzzTest.class, "frames", "story", story);
    seed(RequestPathFuzzTest.class, "requests", "story", story);
  }

  private static List<ClientFrame> setup() {
    List<ClientFrame> frames = new ArrayList<>();
    frames.add(HELLO);
    for (Operation op : Story.SETUP) {
      frames.add(request(frames.size(), op));
    }
    return frames;
  }

  private static ClientFrame request(long id, Operation op) {
    return ClientFrame.newBuilder().setRequest(WireForm.request(id, id - 1, op)).build();
  }

  private static ClientFrame keepAlive(long ack) {
    return ClientFrame.newBuilder().setKeepAlive(KeepAlive.newBuilder().addAcks(ack)).build();
  }

  private static void seed(Class<?> target, String method, String name, ClientFrame frame)
      throws IOException {
    seed(target, method, name, List.of(frame));
  }

  private static void seed(Class<?> target, String method, String name, List<ClientFrame> frames)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (ClientFrame frame : frames) {
      bytes.write(Frames.encode(frame));
    }
    SeedFiles.write(target, method, name, bytes.toByteArray());
  }
}
