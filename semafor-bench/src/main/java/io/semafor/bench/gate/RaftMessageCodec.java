package io.semafor.bench.gate;

import io.microraft.RaftEndpoint;
import io.microraft.impl.statemachine.NoOp;
import io.microraft.model.RaftModelFactory;
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

/**
 * MicroRaft's messages as bytes for the gate's Netty transport: one type byte, the fields every
 * message has (group, sender, term), then the type's own. Operations in log entries are the gate's
 * byte payloads or MicroRaft's own {@link NoOp}; the gate changes no membership, so a membership
 * operation is refused.
 */
final class RaftMessageCodec {
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

  private final RaftModelFactory model = new DefaultRaftModelFactory();

  void write(RaftMessage message, ByteBuf out) {
    if (message instanceof AppendEntriesRequest m) {
      header(out, APPEND_REQUEST, m);
      out.writeInt(m.getPreviousLogTerm());
      out.writeLong(m.getPreviousLogIndex());
      out.writeLong(m.getCommitIndex());
      out.writeLong(m.getQuerySequenceNumber());
      out.writeLong(m.getFlowControlSequenceNumber());
      out.writeInt(m.getLogEntries().size());
      for (LogEntry e : m.getLogEntries()) {
        out.writeLong(e.getIndex());
        out.writeInt(e.getTerm());
        operation(out, e.getOperation());
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
        out.writeLong(chunk.getIndex());
        out.writeInt(chunk.getTerm());
        operation(out, chunk.getOperation());
        out.writeInt(chunk.getSnapshotChunkIndex());
        out.writeInt(chunk.getSnapshotChunkCount());
        membersView(out, chunk.getGroupMembersView());
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

  RaftMessage read(ByteBuf in) {
    byte type = in.readByte();
    Object group = string(in);
    RaftEndpoint sender = new GateEndpoint(string(in));
    int term = in.readInt();
    switch (type) {
      case APPEND_REQUEST -> {
        var b =
            model
                .createAppendEntriesRequestBuilder()
                .setGroupId(group)
                .setSender(sender)
                .setTerm(term)
                .setPreviousLogTerm(in.readInt())
                .setPreviousLogIndex(in.readLong())
                .setCommitIndex(in.readLong())
                .setQuerySequenceNumber(in.readLong())
                .setFlowControlSequenceNumber(in.readLong());
        int n = in.readInt();
        List<LogEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          entries.add(
              model
                  .createLogEntryBuilder()
                  .setIndex(in.readLong())
                  .setTerm(in.readInt())
                  .setOperation(operation(in))
                  .build());
        }
        return b.setLogEntries(entries).build();
      }
      case APPEND_SUCCESS -> {
        return model
            .createAppendEntriesSuccessResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogIndex(in.readLong())
            .setQuerySequenceNumber(in.readLong())
            .setFlowControlSequenceNumber(in.readLong())
            .build();
      }
      case APPEND_FAILURE -> {
        return model
            .createAppendEntriesFailureResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setExpectedNextIndex(in.readLong())
            .setQuerySequenceNumber(in.readLong())
            .setFlowControlSequenceNumber(in.readLong())
            .build();
      }
      case PRE_VOTE_REQUEST -> {
        return model
            .createPreVoteRequestBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogTerm(in.readInt())
            .setLastLogIndex(in.readLong())
            .build();
      }
      case PRE_VOTE_RESPONSE -> {
        return model
            .createPreVoteResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setGranted(in.readBoolean())
            .build();
      }
      case VOTE_REQUEST -> {
        return model
            .createVoteRequestBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogTerm(in.readInt())
            .setLastLogIndex(in.readLong())
            .setSticky(in.readBoolean())
            .build();
      }
      case VOTE_RESPONSE -> {
        return model
            .createVoteResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setGranted(in.readBoolean())
            .build();
      }
      case TRIGGER_ELECTION -> {
        return model
            .createTriggerLeaderElectionRequestBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setLastLogTerm(in.readInt())
            .setLastLogIndex(in.readLong())
            .build();
      }
      case SNAPSHOT_REQUEST -> {
        var b =
            model
                .createInstallSnapshotRequestBuilder()
                .setGroupId(group)
                .setSender(sender)
                .setTerm(term)
                .setSenderLeader(in.readBoolean())
                .setSnapshotTerm(in.readInt())
                .setSnapshotIndex(in.readLong())
                .setTotalSnapshotChunkCount(in.readInt());
        SnapshotChunk chunk = null;
        if (in.readBoolean()) {
          chunk =
              model
                  .createSnapshotChunkBuilder()
                  .setIndex(in.readLong())
                  .setTerm(in.readInt())
                  .setOperation(operation(in))
                  .setSnapshotChunkIndex(in.readInt())
                  .setSnapshotChunkCount(in.readInt())
                  .setGroupMembersView(membersView(in))
                  .build();
        }
        return b.setSnapshotChunk(chunk)
            .setSnapshottedMembers(endpoints(in))
            .setGroupMembersView(membersView(in))
            .setQuerySequenceNumber(in.readLong())
            .setFlowControlSequenceNumber(in.readLong())
            .build();
      }
      case SNAPSHOT_RESPONSE -> {
        return model
            .createInstallSnapshotResponseBuilder()
            .setGroupId(group)
            .setSender(sender)
            .setTerm(term)
            .setSnapshotIndex(in.readLong())
            .setRequestedSnapshotChunkIndex(in.readInt())
            .setQuerySequenceNumber(in.readLong())
            .setFlowControlSequenceNumber(in.readLong())
            .build();
      }
      default -> throw new IllegalArgumentException("unknown message type " + type);
    }
  }

  private static void header(ByteBuf out, byte type, RaftMessage m) {
    out.writeByte(type);
    string(out, (String) m.getGroupId());
    string(out, (String) m.getSender().getId());
    out.writeInt(m.getTerm());
  }

  private static void operation(ByteBuf out, Object op) {
    if (op instanceof byte[] bytes) {
      out.writeByte(OP_BYTES);
      out.writeInt(bytes.length);
      out.writeBytes(bytes);
    } else if (op instanceof NoOp) {
      out.writeByte(OP_NOOP);
    } else {
      throw new IllegalArgumentException("the gate replicates no " + op.getClass().getName());
    }
  }

  private static Object operation(ByteBuf in) {
    byte kind = in.readByte();
    if (kind == OP_NOOP) {
      return NoOp.INSTANCE;
    }
    byte[] bytes = new byte[in.readInt()];
    in.readBytes(bytes);
    return bytes;
  }

  private void membersView(ByteBuf out, RaftGroupMembersView view) {
    out.writeLong(view.getLogIndex());
    endpoints(out, view.getMembers());
    endpoints(out, view.getVotingMembers());
  }

  private RaftGroupMembersView membersView(ByteBuf in) {
    return model
        .createRaftGroupMembersViewBuilder()
        .setLogIndex(in.readLong())
        .setMembers(endpoints(in))
        .setVotingMembers(endpoints(in))
        .build();
  }

  private static void endpoints(ByteBuf out, Collection<RaftEndpoint> endpoints) {
    out.writeInt(endpoints.size());
    for (RaftEndpoint e : endpoints) {
      string(out, (String) e.getId());
    }
  }

  private static List<RaftEndpoint> endpoints(ByteBuf in) {
    int n = in.readInt();
    List<RaftEndpoint> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(new GateEndpoint(string(in)));
    }
    return list;
  }

  private static void string(ByteBuf out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeShort(b.length);
    out.writeBytes(b);
  }

  private static String string(ByteBuf in) {
    int n = in.readUnsignedShort();
    String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
    in.skipBytes(n);
    return s;
  }
}
