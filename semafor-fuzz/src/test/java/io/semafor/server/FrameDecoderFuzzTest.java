package io.semafor.server;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import java.util.List;

/**
 * Fuzzes the client port's frame decoder ({@link FrameCodec.Decoder}) with its default 1 MiB limit.
 * Any bytes, given whole or in pieces, either decode to frames or are refused with the decoder's
 * documented exceptions ({@link FrameBytes#decode}); the pieces never change the result (a frame
 * split across reads decodes as one); and every frame decoded, encoded again, decodes to itself.
 *
 * <p>Seeds: {@code FrameDecoderFuzzTestInputs/frames/}, one frame of every {@code ClientFrame} kind
 * and request kind, and a stream of several ({@code SeedWriter}).
 */
class FrameDecoderFuzzTest {
  @FuzzTest
  void frames(byte[] bytes) {
    FrameBytes whole = FrameBytes.decode(bytes, Math.max(1, bytes.length));
    // a piece size that varies with the input, from 1 byte up, so splits land everywhere
    int piece = 1 + (bytes.length == 0 ? 0 : (bytes[bytes.length - 1] & 0xff) % 17);
    FrameBytes pieces = FrameBytes.decode(bytes, piece);
    if (!whole.equals(pieces)) {
      throw new AssertionError(
          "pieces of " + piece + " bytes decode otherwise: " + whole + " and " + pieces);
    }
    for (ClientFrame frame : whole.frames()) {
      List<ClientFrame> again = FrameBytes.decode(Frames.encode(frame), Integer.MAX_VALUE).frames();
      if (!again.equals(List.of(frame))) {
        throw new AssertionError("a frame re-encoded decodes otherwise: " + frame + " " + again);
      }
    }
  }
}
