package io.semafor.server.wire;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.semafor.core.Name;
import io.semafor.core.Result;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.WatchEvent;
import java.io.IOException;

/**
 * A {@code ServerFrame} holding a {@code CHANGED} watch event, written by hand around a state
 * encoded once ({@link WireResults#watchedState}) so that every watch told that state gets its
 * bytes copied, not serialised again (decision 0041: 100 watchers of a busy semaphore spent most of
 * the server's time serialising the same state). Made once per changed state; each watch's id and
 * revision are given when it is written. The bytes are those the generated code writes for {@link
 * WireResults#watchEvent} (WatchFramesTest). Immutable.
 */
public final class ChangedFrame {
  /** The semaphore's name, UTF-8. */
  private final ByteString name;

  /** {@code WatchEvent}'s field the state goes in: detail or status. */
  private final int stateField;

  /** The state's bytes; not copied, not changed. */
  private final byte[] state;

  private ChangedFrame(ByteString name, int stateField, byte[] state) {
    this.name = name;
    this.stateField = stateField;
    this.state = state;
  }

  /**
   * The frame telling a watch that {@code name} is {@code state}, the state's bytes being {@code
   * bytes} (from {@link WireResults#watchedState}; not copied, must not change).
   */
  public static ChangedFrame of(Name name, Result state, byte[] bytes) {
    int field =
        state instanceof Result.SemaphoreDetail
            ? WatchEvent.DETAIL_FIELD_NUMBER
            : WatchEvent.STATUS_FIELD_NUMBER;
    return new ChangedFrame(ByteString.copyFrom(name.toBytes()), field, bytes);
  }

  private int eventSize(long id, long revision) {
    return (id == 0 ? 0 : CodedOutputStream.computeUInt64Size(WatchEvent.ID_FIELD_NUMBER, id))
        + (revision == 0
            ? 0
            : CodedOutputStream.computeUInt64Size(WatchEvent.REVISION_FIELD_NUMBER, revision))
        + CodedOutputStream.computeEnumSize(
            WatchEvent.KIND_FIELD_NUMBER, WatchEvent.Kind.CHANGED.getNumber())
        + (name.isEmpty()
            ? 0
            : CodedOutputStream.computeBytesSize(WatchEvent.NAME_FIELD_NUMBER, name))
        + CodedOutputStream.computeByteArraySize(stateField, state);
  }

  /**
   * The frame's size in bytes for watch {@code id} at {@code revision} (each 0 is left out, as
   * protobuf leaves out defaults), without the length prefix.
   */
  public int size(long id, long revision) {
    int inner = eventSize(id, revision);
    return CodedOutputStream.computeTagSize(ServerFrame.WATCH_EVENT_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(inner)
        + inner;
  }

  /**
   * Writes the frame's {@link #size} bytes for watch {@code id} at {@code revision} to {@code out}
   * (not flushed).
   *
   * @throws IOException if {@code out} has less room than that
   */
  public void writeTo(CodedOutputStream out, long id, long revision) throws IOException {
    out.writeTag(ServerFrame.WATCH_EVENT_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    out.writeUInt32NoTag(eventSize(id, revision));
    if (id != 0) {
      out.writeUInt64(WatchEvent.ID_FIELD_NUMBER, id);
    }
    if (revision != 0) {
      out.writeUInt64(WatchEvent.REVISION_FIELD_NUMBER, revision);
    }
    out.writeEnum(WatchEvent.KIND_FIELD_NUMBER, WatchEvent.Kind.CHANGED.getNumber());
    if (!name.isEmpty()) {
      out.writeBytes(WatchEvent.NAME_FIELD_NUMBER, name);
    }
    out.writeByteArray(stateField, state);
  }
}
