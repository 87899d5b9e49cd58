package io.semafor.microraft;

import io.microraft.MembershipChangeMode;
import io.microraft.RaftEndpoint;
import io.microraft.impl.statemachine.NoOp;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.groupop.UpdateRaftGroupMembersOp;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.InstallSnapshotResponse;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.PreVoteResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.model.message.VoteRequest;
import io.microraft.model.message.VoteResponse;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * MicroRaft's ten message types as bytes, and back: one type byte, the fields every message has
 * (group id, sender, term), then the type's own fields in a fixed order. A log entry's operation is
 * Semafor's entry bytes, MicroRaft's no-op, or a membership change; a snapshot chunk's is bytes.
 * Members travel as {@link MemberEndpoint}s (id, host, peer port, client port), group ids as text.
 *
 * <p>Reading checks every length and count against what the frame holds before allocating, so a
 * frame from a broken or hostile peer costs at most its own size and ends in a {@link
 * MalformedPeerMessageException}, never in another exception or a half-built message.
 *
 * <p>Stateless and thread-safe.
 */
public final class PeerCodec {
  private static final byte APPEND_REQUEST = 1;
  private static final byte APPEND_SUCCESS = 2;
  private static final byte APPEND_FAILURE = 3;
  private static final byte PRE_VOTE_REQUEST = 4;
  private static final byte PRE_VOTE_RESPONSE = 5;
  private static final byte VOTE_REQUEST = 6;
  private static final byte VOTE_RESPONSE = 7;
  private static final byte TRIGGER_ELECTION = 8;
  private static final byte SNAPSHOT_REQUEST = 9;
  private static final byte SNAPSHOT_RESPONSE = 10;

  private static final byte OP_BYTES = 0;
  private static final byte OP_NOOP = 1;
  private static final byte OP_MEMBERS = 2;

  /** Members in one list at most: Raft groups have a handful; this bounds a hostile count. */
  public static final int MAX_MEMBERS = 64;

  /**
   * Chunks in one snapshot at most. MicroRaft keeps a set entry per chunk it still expects, so an
   * unbounded count from a peer would be an allocation of the peer's choosing.
   */
  public static final int MAX_SNAPSHOT_CHUNKS = 1 << 16;

  static final RaftModelFactory MODEL = new DefaultRaftModelFactory();

  /**
   * Appends {@code message} to {@code out}.
   *
   * @throws IllegalArgumentException if the message, an operation in it or a member is not one this
   *     codec carries (an endpoint other than {@link MemberEndpoint}, a group id other than text):
   *     a programming error, not a peer's
   */
  public void write(RaftMessage message, ByteBuf out) {
    if (message instanceof AppendEntriesRequest m) {
      header(out, APPEND_REQUEST, m);
      out.writeInt(m.getPreviousLogTerm());
      out.writeLong(m.getPreviousLogIndex());
      out.writeLong(m.getCommitIndex());
      out.writeLong(m.getQuerySequenceNumber());
      out.writeLong(m.getFlowControlSequenceNumber());
      out.writeInt(m.getLogEntries().size());
      for (LogEntry e : m.getLogEntries()) {
        entry(out, e);
      }
    } else if (message instanceof AppendEntriesSuccessResponse m) {
      header(out, APPEND_SUCCESS, m);
      out.writeLong(m.getLastLogIndex());
      out.writeLong(m.getQuerySequenceNumber());
      out.writeLong(m.getFlowControlSequenceNumber());
    } else if (message instanceof AppendEntriesFailureResponse m) {
      header(out, APPEND_FAILURE, m);
      out.writeLong(m.getExpectedNextIndex());
      out.writeLong(m.getQuerySequenceNumber());
      out.writeLong(m.getFlowControlSequenceNumber());
    } else if (message instanceof PreVoteRequest m) {
      header(out, PRE_VOTE_REQUEST, m);
      out.writeInt(m.getLastLogTerm());
      out.writeLong(m.getLastLogIndex());
    } else if (message instanceof PreVoteResponse m) {
      header(out, PRE_VOTE_RESPONSE, m);
      out.writeBoolean(m.isGranted());
    } else if (message instanceof VoteRequest m) {
      header(out, VOTE_REQUEST, m);
      out.writeInt(m.getLastLogTerm());
      out.writeLong(m.getLastLogIndex());
      out.writeBoolean(m.isSticky());
    } else if (message instanceof VoteResponse m) {
      header(out, VOTE_RESPONSE, m);
      out.writeBoolean(m.isGranted());
    } else if (message instanceof TriggerLeaderElectionRequest m) {
      header(out, TRIGGER_ELECTION, m);
      out.writeInt(m.getLastLogTerm());
      out.writeLong(m.getLastLogIndex());
    } else if (message instanceof InstallSnapshotRequest m) {
      header(out, SNAPSHOT_REQUEST, m);
      out.writeBoolean(m.isSenderLeader());
      out.writeInt(m.getSnapshotTerm());
      out.writeLong(m.getSnapshotIndex());
      out.writeInt(m.getTotalSnapshotChunkCount());
      SnapshotChunk chunk = m.getSnapshotChunk();
      out.writeBoolean(chunk != null);
      if (chunk != null) {
        chunk(out, chunk);
      }
      endpoints(out, m.getSnapshottedMembers());
      membersView(out, m.getGroupMembersView());
      out.writeLong(m.getQuerySequenceNumber());
      out.writeLong(m.getFlowControlSequenceNumber());
    } else if (message instanceof InstallSnapshotResponse m) {
      header(out, SNAPSHOT_RESPONSE, m);
      out.writeLong(m.getSnapshotIndex());
      out.writeInt(m.getRequestedSnapshotChunkIndex());
      out.writeLong(m.getQuerySequenceNumber());
      out.writeLong(m.getFlowControlSequenceNumber());
    } else {
      throw new IllegalArgumentException("no encoding for " + message.getClass().getName());
    }
  }

  /**
   * Reads one whole message from {@code in}, which must hold exactly one.
   *
   * @throws MalformedPeerMessageException if it does not
   */
  public RaftMessage read(ByteBuf in) {
    return whole(in, PeerCodec::readMessage);
  }

  /**
   * What {@code reader} reads from {@code in}, which must hold exactly one message: shared with
   * {@link ControlCodec}, whose frames travel the same connections.
   *
   * @throws MalformedPeerMessageException if the frame is cut short, holds bytes past the message,
   *     or a field is out of range
   */
  static <T> T whole(ByteBuf in, Function<ByteBuf, T> reader) {
    try {
      T message = reader.apply(in);
      if (in.isReadable()) {
        throw new MalformedPeerMessageException(
            in.readableBytes() + " bytes after a whole message");
      }
      return message;
    } catch (IndexOutOfBoundsException e) {
      throw new MalformedPeerMessageException(
          "truncated: the frame ends at byte " + in.writerIndex() + " inside a field");
    } catch (IllegalArgumentException e) {
      // an endpoint's parts out of range, as MemberEndpoint checks them
      throw new MalformedPeerMessageException(String.valueOf(e.getMessage()));
    }
  }

  private static RaftMessage readMessage(ByteBuf in) {
    byte type = in.readByte();
    String group = text(in);
    RaftEndpoint sender = endpoint(in);
    int term = nonNegative(in.readInt(), "term");
    switch (type) {
      case APPEND_REQUEST -> {
        var b =
            MODEL
                .createAppendEntriesRequestBuilder()
                .setGroupId(group)
                .setSender(sender)
                .setTerm(term)
                .setPreviousLogTerm(nonNegative(in.readInt(), "PreviousLogTerm"))
                .setPreviousLogIndex(nonNegative(in.readLong(), "PreviousLogIndex"))
                .setCommitIndex(nonNegative(in.readLong(), "CommitIndex"))
                .setQuerySequenceNumber(nonNegative(in.readLong(), "QuerySequenceNumber"))
                .setFlowControlSequenceNumber(
                    nonNegative(in.readLong(), "FlowControlSequenceNumber"));
        // an entry is at least 13 bytes: index, term, operation kind
        int n = count(in, in.readableBytes() / 13, "entries");
        List<LogEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          entries.add(entry(in));
        }
        return b.setLogEntries(entries).build();
      }
      case APPEND_SUCCESS -> {
        return MODEL
            .createAppendEntriesSuccessResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogIndex(nonNegative(in.readLong(), "LastLogIndex"))
            .setQuerySequenceNumber(nonNegative(in.readLong(), "QuerySequenceNumber"))
            .setFlowControlSequenceNumber(nonNegative(in.readLong(), "FlowControlSequenceNumber"))
            .build();
      }
      case APPEND_FAILURE -> {
        return MODEL
            .createAppendEntriesFailureResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setExpectedNextIndex(nonNegative(in.readLong(), "ExpectedNextIndex"))
            .setQuerySequenceNumber(nonNegative(in.readLong(), "QuerySequenceNumber"))
            .setFlowControlSequenceNumber(nonNegative(in.readLong(), "FlowControlSequenceNumber"))
            .build();
      }
      case PRE_VOTE_REQUEST -> {
        return MODEL
            .createPreVoteRequestBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogTerm(nonNegative(in.readInt(), "LastLogTerm"))
            .setLastLogIndex(nonNegative(in.readLong(), "LastLogIndex"))
            .build();
      }
      case PRE_VOTE_RESPONSE -> {
        return MODEL
            .createPreVoteResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setGranted(in.readBoolean())
            .build();
      }
      case VOTE_REQUEST -> {
        return MODEL
            .createVoteRequestBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogTerm(nonNegative(in.readInt(), "LastLogTerm"))
            .setLastLogIndex(nonNegative(in.readLong(), "LastLogIndex"))
            .setSticky(in.readBoolean())
            .build();
      }
      case VOTE_RESPONSE -> {
        return MODEL
            .createVoteResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setGranted(in.readBoolean())
            .build();
      }
      case TRIGGER_ELECTION -> {
        return MODEL
            .createTriggerLeaderElectionRequestBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogTerm(nonNegative(in.readInt(), "LastLogTerm"))
            .setLastLogIndex(nonNegative(in.readLong(), "LastLogIndex"))
            .build();
      }
      case SNAPSHOT_REQUEST -> {
        var b =
            MODEL
                .createInstallSnapshotRequestBuilder()
                .setGroupId(group)
                .setSender(sender)
                .setTerm(term)
                .setSenderLeader(in.readBoolean())
                .setSnapshotTerm(nonNegative(in.readInt(), "SnapshotTerm"))
                .setSnapshotIndex(nonNegative(in.readLong(), "SnapshotIndex"))
                .setTotalSnapshotChunkCount(count(in, MAX_SNAPSHOT_CHUNKS, "snapshot chunks"));
        SnapshotChunk chunk = null;
        if (in.readBoolean()) {
          chunk = chunk(in);
        }
        return b.setSnapshotChunk(chunk)
            .setSnapshottedMembers(endpoints(in))
            .setGroupMembersView(membersView(in))
            .setQuerySequenceNumber(nonNegative(in.readLong(), "QuerySequenceNumber"))
            .setFlowControlSequenceNumber(nonNegative(in.readLong(), "FlowControlSequenceNumber"))
            .build();
      }
      case SNAPSHOT_RESPONSE -> {
        return MODEL
            .createInstallSnapshotResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setSnapshotIndex(nonNegative(in.readLong(), "SnapshotIndex"))
            .setRequestedSnapshotChunkIndex(
                nonNegative(in.readInt(), "RequestedSnapshotChunkIndex"))
            .setQuerySequenceNumber(nonNegative(in.readLong(), "QuerySequenceNumber"))
            .setFlowControlSequenceNumber(nonNegative(in.readLong(), "FlowControlSequenceNumber"))
            .build();
      }
      default -> throw new MalformedPeerMessageException("unknown message type " + type);
    }
  }

  private static void header(ByteBuf out, byte type, RaftMessage m) {
    out.writeByte(type);
    if (!(m.getGroupId() instanceof String group)) {
      throw new IllegalArgumentException("group ids are text, not " + m.getGroupId());
    }
    text(out, group);
    endpoint(out, m.getSender());
    out.writeInt(m.getTerm());
  }

  /** A log entry: its index, term and operation (also the log store's record of it). */
  static void entry(ByteBuf out, LogEntry e) {
    out.writeLong(e.getIndex());
    out.writeInt(e.getTerm());
    operation(out, e.getOperation());
  }

  /** Reads what {@link #entry(ByteBuf, LogEntry)} wrote. */
  static LogEntry entry(ByteBuf in) {
    return MODEL
        .createLogEntryBuilder()
        .setIndex(nonNegative(in.readLong(), "Index"))
        .setTerm(nonNegative(in.readInt(), "Term"))
        .setOperation(operation(in))
        .build();
  }

  /** A snapshot chunk (also the log store's record of it). */
  static void chunk(ByteBuf out, SnapshotChunk chunk) {
    out.writeLong(chunk.getIndex());
    out.writeInt(chunk.getTerm());
    bytes(out, chunkBytes(chunk.getOperation()));
    out.writeInt(chunk.getSnapshotChunkIndex());
    out.writeInt(chunk.getSnapshotChunkCount());
    membersView(out, chunk.getGroupMembersView());
  }

  /** Reads what {@link #chunk(ByteBuf, SnapshotChunk)} wrote. */
  static SnapshotChunk chunk(ByteBuf in) {
    return MODEL
        .createSnapshotChunkBuilder()
        .setIndex(nonNegative(in.readLong(), "Index"))
        .setTerm(nonNegative(in.readInt(), "Term"))
        .setOperation(bytes(in))
        .setSnapshotChunkIndex(nonNegative(in.readInt(), "SnapshotChunkIndex"))
        .setSnapshotChunkCount(count(in, MAX_SNAPSHOT_CHUNKS, "snapshot chunks"))
        .setGroupMembersView(membersView(in))
        .build();
  }

  private static void operation(ByteBuf out, @Nullable Object op) {
    if (op instanceof byte[] b) {
      out.writeByte(OP_BYTES);
      bytes(out, b);
    } else if (op instanceof NoOp) {
      out.writeByte(OP_NOOP);
    } else if (op instanceof UpdateRaftGroupMembersOp m) {
      out.writeByte(OP_MEMBERS);
      endpoints(out, m.getMembers());
      endpoints(out, m.getVotingMembers());
      endpoint(out, m.getEndpoint());
      out.writeByte(modeCode(m.getMode()));
    } else {
      throw new IllegalArgumentException(
          "log entries carry bytes, no-ops or membership changes, not "
              + (op == null ? "null" : op.getClass().getName()));
    }
  }

  private static Object operation(ByteBuf in) {
    byte kind = in.readByte();
    switch (kind) {
      case OP_BYTES -> {
        return bytes(in);
      }
      case OP_NOOP -> {
        return NoOp.INSTANCE;
      }
      case OP_MEMBERS -> {
        var b =
            MODEL
                .createUpdateRaftGroupMembersOpBuilder()
                .setMembers(endpoints(in))
                .setVotingMembers(endpoints(in))
                .setEndpoint(endpoint(in));
        return b.setMode(mode(in.readByte())).build();
      }
      default -> throw new MalformedPeerMessageException("unknown operation kind " + kind);
    }
  }

  /**
   * Membership change modes by a code of our own, so that MicroRaft reordering them breaks no log.
   */
  private static int modeCode(MembershipChangeMode mode) {
    return switch (mode) {
      case ADD_LEARNER -> 0;
      case ADD_OR_PROMOTE_TO_FOLLOWER -> 1;
      case REMOVE_MEMBER -> 2;
    };
  }

  private static MembershipChangeMode mode(byte code) {
    return switch (code) {
      case 0 -> MembershipChangeMode.ADD_LEARNER;
      case 1 -> MembershipChangeMode.ADD_OR_PROMOTE_TO_FOLLOWER;
      case 2 -> MembershipChangeMode.REMOVE_MEMBER;
      default -> throw new MalformedPeerMessageException("unknown membership change mode " + code);
    };
  }

  private static byte[] chunkBytes(@Nullable Object operation) {
    if (operation instanceof byte[] b) {
      return b;
    }
    throw new IllegalArgumentException(
        "snapshot chunks carry bytes, not "
            + (operation == null ? "null" : operation.getClass().getName()));
  }

  private static void bytes(ByteBuf out, byte[] b) {
    out.writeInt(b.length);
    out.writeBytes(b);
  }

  private static byte[] bytes(ByteBuf in) {
    int n = count(in, in.readableBytes(), "bytes");
    byte[] b = new byte[n];
    in.readBytes(b);
    return b;
  }

  static void membersView(ByteBuf out, RaftGroupMembersView view) {
    out.writeLong(view.getLogIndex());
    endpoints(out, view.getMembers());
    endpoints(out, view.getVotingMembers());
  }

  static RaftGroupMembersView membersView(ByteBuf in) {
    return MODEL
        .createRaftGroupMembersViewBuilder()
        .setLogIndex(nonNegative(in.readLong(), "LogIndex"))
        .setMembers(endpoints(in))
        .setVotingMembers(endpoints(in))
        .build();
  }

  private static void endpoints(ByteBuf out, Collection<RaftEndpoint> endpoints) {
    if (endpoints.size() > MAX_MEMBERS) {
      throw new IllegalArgumentException(
          endpoints.size() + " members: a reader takes at most " + MAX_MEMBERS);
    }
    out.writeInt(endpoints.size());
    for (RaftEndpoint e : endpoints) {
      endpoint(out, e);
    }
  }

  private static List<RaftEndpoint> endpoints(ByteBuf in) {
    int n = count(in, MAX_MEMBERS, "members");
    List<RaftEndpoint> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(endpoint(in));
    }
    return list;
  }

  static void endpoint(ByteBuf out, RaftEndpoint endpoint) {
    if (!(endpoint instanceof MemberEndpoint m)) {
      throw new IllegalArgumentException(
          "members are MemberEndpoints, not " + endpoint.getClass().getName());
    }
    text(out, m.id());
    text(out, m.host());
    out.writeShort(m.port());
    out.writeShort(m.clientPort());
  }

  static MemberEndpoint endpoint(ByteBuf in) {
    return new MemberEndpoint(text(in), text(in), in.readUnsignedShort(), in.readUnsignedShort());
  }

  private static void text(ByteBuf out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > MemberEndpoint.MAX_TEXT_BYTES) {
      throw new IllegalArgumentException("text of " + b.length + " bytes: at most 255");
    }
    out.writeByte(b.length);
    out.writeBytes(b);
  }

  private static String text(ByteBuf in) {
    int n = in.readUnsignedByte();
    if (n > in.readableBytes()) {
      throw new MalformedPeerMessageException("text of " + n + " bytes in a shorter frame");
    }
    String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
    in.skipBytes(n);
    return s;
  }

  private static int nonNegative(int value, String what) {
    if (value < 0) {
      throw new MalformedPeerMessageException(what + " is negative: " + value);
    }
    return value;
  }

  private static long nonNegative(long value, String what) {
    if (value < 0) {
      throw new MalformedPeerMessageException(what + " is negative: " + value);
    }
    return value;
  }

  /** A count read from the frame, checked against {@code most} before anything is allocated. */
  private static int count(ByteBuf in, int most, String what) {
    int n = in.readInt();
    if (n < 0 || n > most) {
      throw new MalformedPeerMessageException(
          what + ": a count of " + n + " where at most " + most + " fit");
    }
    return n;
  }
}
