package io.semafor.core;

import io.semafor.ErrorCode;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes and reads the results a session keeps for unacknowledged replies, for snapshots. The tags
 * are part of the snapshot format: never reuse one.
 */
final class ResultCodec {
  private ResultCodec() {}

  static void writeReply(DataOutput out, Reply reply) throws IOException {
    out.writeLong(reply.sessionId());
    out.writeLong(reply.requestId());
    out.writeLong(reply.revision());
    write(out, reply.result());
  }

  static Reply readReply(DataInput in) throws IOException {
    return new Reply(in.readLong(), in.readLong(), in.readLong(), read(in));
  }

  static void write(DataOutput out, Result result) throws IOException {
    if (result instanceof Result.Failure r) {
      out.writeByte(1);
      out.writeShort(r.code().number());
      out.writeUTF(r.message());
    } else if (result instanceof Result.SessionOpened r) {
      out.writeByte(2);
      out.writeLong(r.sessionId());
      out.writeLong(r.ttl());
    } else if (result instanceof Result.SessionClosed) {
      out.writeByte(3);
    } else if (result instanceof Result.Expiry r) {
      out.writeByte(4);
      out.writeBoolean(r.applied());
    } else if (result instanceof Result.Created r) {
      out.writeByte(5);
      out.writeBoolean(r.created());
      out.writeLong(r.options().capacity());
      out.writeByte(r.options().policy().number());
      out.writeInt(r.options().maxPerSession());
      out.writeLong(r.value());
    } else if (result instanceof Result.Deleted) {
      out.writeByte(6);
    } else if (result instanceof Result.ValueSet r) {
      out.writeByte(7);
      out.writeLong(r.previous());
    } else if (result instanceof Result.Incremented r) {
      out.writeByte(8);
      out.writeLong(r.value());
    } else if (result instanceof Result.Granted r) {
      out.writeByte(9);
      out.writeLong(r.amount());
      out.writeLong(r.token());
      out.writeLong(r.sequence());
      writeLongs(out, r.slots());
    } else if (result instanceof Result.LeaseGranted r) {
      out.writeByte(10);
      out.writeLong(r.permitId());
      out.writeLong(r.amount());
      out.writeLong(r.token());
      out.writeLong(r.sequence());
      writeLongs(out, r.slots());
      out.writeLong(r.expiresAt());
    } else if (result instanceof Result.ZeroReached r) {
      out.writeByte(11);
      out.writeBoolean(r.reached());
      out.writeLong(r.sequence());
    } else if (result instanceof Result.SemopDone r) {
      out.writeByte(12);
      out.writeBoolean(r.done());
      out.writeLong(r.token());
      out.writeLong(r.sequence());
      out.writeInt(r.slots().size());
      for (List<Long> slots : r.slots()) {
        writeLongs(out, slots);
      }
    } else if (result instanceof Result.Released r) {
      out.writeByte(13);
      out.writeLong(r.amount());
    } else if (result instanceof Result.LeaseReleased r) {
      out.writeByte(14);
      out.writeBoolean(r.released());
    } else if (result instanceof Result.LeaseRenewed r) {
      out.writeByte(15);
      out.writeLong(r.expiresAt());
    } else if (result instanceof Result.WaitManyAdded r) {
      out.writeByte(16);
      out.writeLong(r.granted());
      out.writeLong(r.pending());
    } else if (result instanceof Result.WaitManyRemoved r) {
      out.writeByte(17);
      out.writeBoolean(r.removed());
      out.writeLong(r.returned());
    } else if (result instanceof Result.WaitManyReported r) {
      out.writeByte(18);
      out.writeInt(r.reports().size());
      for (Result.Report report : r.reports()) {
        writeBytes(out, report.name().bytes());
        out.writeLong(report.granted());
        out.writeLong(report.token());
      }
    } else if (result instanceof Result.Cancelled r) {
      out.writeByte(19);
      out.writeBoolean(r.cancelled());
    } else if (result instanceof Result.SessionEnded r) {
      out.writeByte(20);
      out.writeLong(r.sessionId());
    } else {
      throw new IllegalStateException("a session never keeps a " + result);
    }
  }

  static Result read(DataInput in) throws IOException {
    int tag = in.readByte();
    return switch (tag) {
      case 1 -> new Result.Failure(ErrorCode.ofNumber(in.readShort()), in.readUTF());
      case 2 -> new Result.SessionOpened(in.readLong(), in.readLong());
      case 3 -> new Result.SessionClosed();
      case 4 -> new Result.Expiry(in.readBoolean());
      case 5 -> {
        boolean created = in.readBoolean();
        SemaphoreOptions options =
            new SemaphoreOptions(in.readLong(), Policy.ofNumber(in.readByte()), in.readInt());
        yield new Result.Created(created, options, in.readLong());
      }
      case 6 -> new Result.Deleted();
      case 7 -> new Result.ValueSet(in.readLong());
      case 8 -> new Result.Incremented(in.readLong());
      case 9 -> new Result.Granted(in.readLong(), in.readLong(), in.readLong(), readLongs(in));
      case 10 ->
          new Result.LeaseGranted(
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              readLongs(in),
              in.readLong());
      case 11 -> new Result.ZeroReached(in.readBoolean(), in.readLong());
      case 12 -> {
        boolean done = in.readBoolean();
        long token = in.readLong();
        long sequence = in.readLong();
        int n = in.readInt();
        List<List<Long>> slots = listOf(n);
        for (int i = 0; i < n; i++) {
          slots.add(readLongs(in));
        }
        yield new Result.SemopDone(done, token, sequence, slots);
      }
      case 13 -> new Result.Released(in.readLong());
      case 14 -> new Result.LeaseReleased(in.readBoolean());
      case 15 -> new Result.LeaseRenewed(in.readLong());
      case 16 -> new Result.WaitManyAdded(in.readLong(), in.readLong());
      case 17 -> new Result.WaitManyRemoved(in.readBoolean(), in.readLong());
      case 18 -> {
        int n = in.readInt();
        List<Result.Report> reports = listOf(n);
        for (int i = 0; i < n; i++) {
          reports.add(new Result.Report(Name.wrap(readBytes(in)), in.readLong(), in.readLong()));
        }
        yield new Result.WaitManyReported(reports);
      }
      case 19 -> new Result.Cancelled(in.readBoolean());
      case 20 -> new Result.SessionEnded(in.readLong());
      default -> throw new IOException("unknown result tag " + tag);
    };
  }

  static void writeLongs(DataOutput out, List<Long> values) throws IOException {
    out.writeInt(values.size());
    for (long v : values) {
      out.writeLong(v);
    }
  }

  static List<Long> readLongs(DataInput in) throws IOException {
    int n = in.readInt();
    List<Long> values = listOf(n);
    for (int i = 0; i < n; i++) {
      values.add(in.readLong());
    }
    return values;
  }

  /**
   * An empty list for {@code n} elements about to be read. Room beyond the first 1,024 is made as
   * they arrive, so a corrupt count fails at the end of the input instead of allocating gigabytes.
   */
  private static <T> List<T> listOf(int n) throws IOException {
    if (n < 0) {
      throw new IOException("corrupt snapshot: a list of " + n + " elements");
    }
    return new ArrayList<>(Math.min(n, 1024));
  }

  static void writeBytes(DataOutput out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static byte[] readBytes(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > 1 << 24) {
      throw new IOException("corrupt snapshot: a name of " + n + " bytes");
    }
    byte[] bytes = new byte[n];
    in.readFully(bytes);
    return bytes;
  }
}
