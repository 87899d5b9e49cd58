package io.semafor.microraft;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link GroupControl} messages as bytes, and back. They share the peer connections and framing
 * with Raft's messages ({@link PeerCodec}); their type bytes start at {@link #FIRST_TYPE}, above
 * every Raft message's, so a frame's first byte says which codec reads it.
 *
 * <p>Reading checks every length and count against what the frame holds; anything else is a {@link
 * MalformedPeerMessageException}. Stateless and thread-safe.
 */
final class ControlCodec {
  /** The lowest type byte of a control message; Raft's messages are below it. */
  static final byte FIRST_TYPE = 32;

  private static final byte WELCOME = 32;
  private static final byte WELCOMED = 33;
  private static final byte CHANGE_MEMBERS = 34;
  private static final byte MEMBERS_CHANGED = 35;

  /** The longest text a control message carries, in UTF-8 bytes. */
  static final int MAX_TEXT_BYTES = 16 * 1024;

  private ControlCodec() {}

  /** Whether the frame starting at {@code in}'s reader index is a control message. */
  static boolean isControl(ByteBuf in) {
    return in.isReadable() && in.getByte(in.readerIndex()) >= FIRST_TYPE;
  }

  /**
   * Appends {@code message} to {@code out}.
   *
   * @throws IllegalArgumentException if a text is longer than {@link #MAX_TEXT_BYTES} or a list
   *     longer than {@link PeerCodec#MAX_MEMBERS}: a programming error, not a peer's
   */
  static void write(GroupControl message, ByteBuf out) {
    // Java 17: no patterns in switch yet; the interface is sealed, so these four are all
    if (message instanceof GroupControl.Welcome m) {
      header(out, WELCOME, m);
      if (m.initialMembers().size() > PeerCodec.MAX_MEMBERS) {
        throw new IllegalArgumentException(m.initialMembers().size() + " members");
      }
      out.writeInt(m.initialMembers().size());
      m.initialMembers().forEach(e -> PeerCodec.endpoint(out, e));
    } else if (message instanceof GroupControl.Welcomed m) {
      header(out, WELCOMED, m);
      out.writeBoolean(m.joined());
      text(out, m.reason());
    } else if (message instanceof GroupControl.ChangeMembers m) {
      header(out, CHANGE_MEMBERS, m);
      out.writeByte(code(m.change()));
      text(out, m.argument());
      out.writeLong(m.waitMillis());
    } else if (message instanceof GroupControl.MembersChanged m) {
      header(out, MEMBERS_CHANGED, m);
      out.writeByte(code(m.outcome()));
      text(out, m.text());
    }
  }

  /**
   * Reads one whole message from {@code in}, which must hold exactly one.
   *
   * @throws MalformedPeerMessageException if it does not
   */
  static GroupControl read(ByteBuf in) {
    return PeerCodec.whole(in, ControlCodec::readMessage);
  }

  private static GroupControl readMessage(ByteBuf in) {
    byte type = in.readByte();
    long id = in.readLong();
    MemberEndpoint sender = PeerCodec.endpoint(in);
    switch (type) {
      case WELCOME -> {
        int n = in.readInt();
        if (n < 0 || n > PeerCodec.MAX_MEMBERS) {
          throw new MalformedPeerMessageException("a welcome with " + n + " members");
        }
        List<MemberEndpoint> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          members.add(PeerCodec.endpoint(in));
        }
        return new GroupControl.Welcome(id, sender, members);
      }
      case WELCOMED -> {
        return new GroupControl.Welcomed(id, sender, in.readBoolean(), text(in));
      }
      case CHANGE_MEMBERS -> {
        GroupControl.Change change = change(in.readByte());
        String argument = text(in);
        long waitMillis = in.readLong();
        if (waitMillis < 0) {
          throw new MalformedPeerMessageException("a change to wait " + waitMillis + " ms");
        }
        return new GroupControl.ChangeMembers(id, sender, change, argument, waitMillis);
      }
      case MEMBERS_CHANGED -> {
        GroupControl.Outcome outcome = outcome(in.readByte());
        return new GroupControl.MembersChanged(id, sender, outcome, text(in));
      }
      default -> throw new MalformedPeerMessageException("unknown control message type " + type);
    }
  }

  // codes of our own, so that reordering an enum changes no byte on the wire

  private static int code(GroupControl.Change change) {
    return switch (change) {
      case ADD -> 0;
      case REMOVE -> 1;
    };
  }

  private static GroupControl.Change change(byte code) {
    return switch (code) {
      case 0 -> GroupControl.Change.ADD;
      case 1 -> GroupControl.Change.REMOVE;
      default -> throw new MalformedPeerMessageException("unknown change " + code);
    };
  }

  private static int code(GroupControl.Outcome outcome) {
    return switch (outcome) {
      case DONE -> 0;
      case INVALID -> 1;
      case REFUSED -> 2;
      case UNKNOWN -> 3;
    };
  }

  private static GroupControl.Outcome outcome(byte code) {
    return switch (code) {
      case 0 -> GroupControl.Outcome.DONE;
      case 1 -> GroupControl.Outcome.INVALID;
      case 2 -> GroupControl.Outcome.REFUSED;
      case 3 -> GroupControl.Outcome.UNKNOWN;
      default -> throw new MalformedPeerMessageException("unknown outcome " + code);
    };
  }

  private static void header(ByteBuf out, byte type, GroupControl m) {
    out.writeByte(type);
    out.writeLong(m.id());
    PeerCodec.endpoint(out, m.sender());
  }

  private static void text(ByteBuf out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > MAX_TEXT_BYTES) {
      // an answer's message past the limit is cut, not lost (the cut may split a character)
      b = java.util.Arrays.copyOf(b, MAX_TEXT_BYTES);
    }
    out.writeShort(b.length);
    out.writeBytes(b);
  }

  private static String text(ByteBuf in) {
    int n = in.readUnsignedShort();
    if (n > MAX_TEXT_BYTES || n > in.readableBytes()) {
      throw new MalformedPeerMessageException("text of " + n + " bytes in a shorter frame");
    }
    String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
    in.skipBytes(n);
    return s;
  }
}
