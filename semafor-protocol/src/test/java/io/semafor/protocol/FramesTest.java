package io.semafor.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Request;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class FramesTest {
  private static final ClientFrame FRAME =
      ClientFrame.newBuilder()
          .setRequest(
              Request.newBuilder()
                  .setId(7)
                  .addAcks(6)
                  .setIncrement(
                      Increment.newBuilder().setName(ByteString.copyFromUtf8("jobs")).setAmount(2)))
          .build();

  @Test
  void aFrameIsABigEndianLengthThenTheMessage() {
    byte[] frame = Frames.encode(FRAME);
    int length = FRAME.getSerializedSize();
    assertThat(frame).hasSize(4 + length);
    assertThat(frame[0] << 24 | frame[1] << 16 | frame[2] << 8 | (frame[3] & 0xff))
        .isEqualTo(length);
  }

  @Test
  void framesReadBackInOrder() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Frames.write(out, FRAME);
    Frames.write(
        out,
        ClientFrame.getDefaultInstance().toBuilder()
            .setRequest(Request.newBuilder().setId(8))
            .build());
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(out.toByteArray()));
    assertThat(ClientFrame.parseFrom(Frames.read(in, 1024))).isEqualTo(FRAME);
    assertThat(ClientFrame.parseFrom(Frames.read(in, 1024)).getRequest().getId()).isEqualTo(8);
  }

  @Test
  void aFrameLongerThanTheLimitIsRefusedBeforeItIsRead() {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(new byte[] {0, 0x10, 0, 1}));
    assertThatThrownBy(() -> Frames.read(in, Frames.DEFAULT_MAX_FRAME_BYTES))
        .isInstanceOf(Frames.FrameTooLargeException.class)
        .hasMessage("frame of 1048577 bytes, limit 1048576");
  }

  @Test
  void aStreamThatEndsWithinAFrameIsAnEof() {
    byte[] frame = Frames.encode(FRAME);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(frame, 0, frame.length - 1));
    assertThatThrownBy(() -> Frames.read(in, 1024)).isInstanceOf(EOFException.class);
  }
}
