package io.semafor.replication.group;

import io.semafor.ClientInfo;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.core.Secret;
import io.semafor.core.SemopOp;
import io.semafor.core.SessionOwner;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The log's encoding of commands and of the reads that travel through the Raft log: a tag byte,
 * then the fields in declaration order. It is part of the on-disk format: a tag is never reused,
 * and a new field gets a new tag. Stateless.
 */
public final class CommandCodec {
  private CommandCodec() {}

  /** Writes {@code command} in the log's encoding. */
  public static void write(DataOutput out, Command command) throws IOException {
    if (command instanceof Command.Request r) {
      out.writeByte(1);
      out.writeLong(r.sessionId());
      out.writeLong(r.requestId());
      writeLongs(out, r.acks());
      writeOperation(out, r.operation());
    } else if (command instanceof Command.OpenSession o
        && o.client().equals(ClientInfo.NONE)
        && o.owner().equals(SessionOwner.NONE)
        && o.idEntropy().isNone()) {
      // tag 2, a TTL alone, is also what logs written before clients described themselves hold
      out.writeByte(2);
      out.writeLong(o.ttl());
    } else if (command instanceof Command.OpenSession o
        && o.owner().equals(SessionOwner.NONE)
        && o.idEntropy().isNone()) {
      // tag 8, a TTL and a client: what logs written before sessions had owners hold
      out.writeByte(8);
      out.writeLong(o.ttl());
      writeClient(out, o.client());
    } else if (command instanceof Command.OpenSession o) {
      out.writeByte(9);
      out.writeLong(o.ttl());
      writeClient(out, o.client());
      out.writeUTF(o.owner().principal());
      writeSecret(out, o.owner().secretDigest());
      writeSecret(out, o.idEntropy());
    } else if (command instanceof Command.ExpireSession e) {
      out.writeByte(3);
      out.writeLong(e.sessionId());
    } else if (command instanceof Command.ExpireWaiter e) {
      out.writeByte(4);
      out.writeLong(e.sessionId());
      out.writeLong(e.requestId());
    } else if (command instanceof Command.ExpireLease e) {
      out.writeByte(5);
      out.writeLong(e.permitId());
    } else if (command instanceof Command.Acknowledge a) {
      out.writeByte(6);
      out.writeLong(a.sessionId());
      writeLongs(out, a.acks());
    } else if (command instanceof Command.ContinueGrants) {
      out.writeByte(7);
    } else if (command instanceof Command.RefuseWaiter r) {
      out.writeByte(10);
      out.writeLong(r.sessionId());
      out.writeLong(r.requestId());
      out.writeShort(r.code().number());
      out.writeUTF(r.message());
    } else {
      throw new IllegalArgumentException("no encoding for " + command);
    }
  }

  private static void writeClient(DataOutput out, ClientInfo client) throws IOException {
    out.writeUTF(client.name());
    out.writeUTF(client.host());
    out.writeLong(client.pid());
  }

  private static ClientInfo readClient(DataInput in) throws IOException {
    return new ClientInfo(in.readUTF(), in.readUTF(), in.readLong());
  }

  private static void writeSecret(DataOutput out, Secret secret) throws IOException {
    out.writeLong(secret.hi());
    out.writeLong(secret.lo());
  }

  private static Secret readSecret(DataInput in) throws IOException {
    return new Secret(in.readLong(), in.readLong());
  }

  /**
   * Reads a command written by {@link #write}.
   *
   * @throws IOException if the bytes are not a command
   */
  public static Command read(DataInput in) throws IOException {
    int tag = in.readByte();
    return switch (tag) {
      case 1 -> new Command.Request(in.readLong(), in.readLong(), readLongs(in), readOperation(in));
      case 2 -> new Command.OpenSession(in.readLong());
      case 3 -> new Command.ExpireSession(in.readLong());
      case 4 -> new Command.ExpireWaiter(in.readLong(), in.readLong());
      case 5 -> new Command.ExpireLease(in.readLong());
      case 6 -> new Command.Acknowledge(in.readLong(), readLongs(in));
      case 7 -> new Command.ContinueGrants();
      case 8 -> new Command.OpenSession(in.readLong(), readClient(in));
      case 9 ->
          new Command.OpenSession(
              in.readLong(),
              readClient(in),
              new SessionOwner(in.readUTF(), readSecret(in)),
              readSecret(in));
      case 10 ->
          new Command.RefuseWaiter(
              in.readLong(), in.readLong(), errorCode(in.readShort()), in.readUTF());
      default -> throw new IOException("unknown command tag " + tag);
    };
  }

  private static void writeOperation(DataOutput out, Operation op) throws IOException {
    if (op instanceof Operation.Create c) {
      out.writeByte(1);
      writeName(out, c.name());
      out.writeLong(c.initial());
      out.writeLong(c.options().capacity());
      out.writeByte(c.options().policy().number());
      out.writeInt(c.options().maxPerSession());
    } else if (op instanceof Operation.Delete d) {
      out.writeByte(2);
      writeName(out, d.name());
    } else if (op instanceof Operation.SetValue s) {
      out.writeByte(3);
      writeName(out, s.name());
      out.writeLong(s.value());
    } else if (op instanceof Operation.Increment i) {
      out.writeByte(4);
      writeName(out, i.name());
      out.writeLong(i.amount());
    } else if (op instanceof Operation.Decrement d) {
      out.writeByte(5);
      writeName(out, d.name());
      out.writeLong(d.amount());
      out.writeLong(d.timeout());
      out.writeBoolean(d.owned());
    } else if (op instanceof Operation.Acquire a) {
      out.writeByte(6);
      writeName(out, a.name());
      out.writeLong(a.amount());
      out.writeLong(a.timeout());
      out.writeBoolean(a.owned());
    } else if (op instanceof Operation.AcquireLease l) {
      out.writeByte(7);
      writeName(out, l.name());
      out.writeLong(l.amount());
      out.writeLong(l.leaseTtl());
      out.writeLong(l.timeout());
    } else if (op instanceof Operation.AwaitZero z) {
      out.writeByte(8);
      writeName(out, z.name());
      out.writeLong(z.timeout());
    } else if (op instanceof Operation.Semop s) {
      out.writeByte(9);
      out.writeInt(s.ops().size());
      for (SemopOp o : s.ops()) {
        writeName(out, o.name());
        out.writeLong(o.delta());
        out.writeBoolean(o.noWait());
        out.writeBoolean(o.owned());
      }
      out.writeLong(s.timeout());
    } else if (op instanceof Operation.Release r) {
      out.writeByte(10);
      writeName(out, r.name());
      out.writeLong(r.amount());
    } else if (op instanceof Operation.ReleaseSlot r) {
      out.writeByte(11);
      writeName(out, r.name());
      out.writeLong(r.slot());
    } else if (op instanceof Operation.RenewLease r) {
      // tags 12 and 13, a permit id alone, are what logs written before requests named the
      // lease's semaphore hold; 20 and 21 what they hold before a request could be the taker's
      // only (decision 0047)
      Name name = r.name();
      out.writeByte(name == null ? 12 : r.takerOnly() ? 22 : 20);
      out.writeLong(r.permitId());
      out.writeLong(r.ttl());
      if (name != null) {
        writeName(out, name);
      }
    } else if (op instanceof Operation.ReleaseLease r) {
      Name name = r.name();
      out.writeByte(name == null ? 13 : r.takerOnly() ? 23 : 21);
      out.writeLong(r.permitId());
      if (name != null) {
        writeName(out, name);
      }
    } else if (op instanceof Operation.AddToWaitMany a) {
      out.writeByte(14);
      out.writeLong(a.listId());
      writeName(out, a.name());
      out.writeLong(a.amount());
    } else if (op instanceof Operation.RemoveFromWaitMany r) {
      out.writeByte(15);
      out.writeLong(r.listId());
      writeName(out, r.name());
    } else if (op instanceof Operation.WaitMany w) {
      out.writeByte(16);
      out.writeLong(w.listId());
      out.writeLong(w.timeout());
    } else if (op instanceof Operation.Cancel c) {
      out.writeByte(17);
      out.writeLong(c.requestId());
    } else if (op instanceof Operation.CloseSession) {
      out.writeByte(18);
    } else if (op instanceof Operation.EndSession e) {
      out.writeByte(19);
      out.writeLong(e.sessionId());
    } else {
      throw new IllegalArgumentException("no encoding for " + op);
    }
  }

  private static io.semafor.ErrorCode errorCode(int number) throws IOException {
    try {
      return io.semafor.ErrorCode.ofNumber(number);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt entry: unknown error code " + number, e);
    }
  }

  private static Operation readOperation(DataInput in) throws IOException {
    int tag = in.readByte();
    return switch (tag) {
      case 1 ->
          new Operation.Create(
              readName(in),
              in.readLong(),
              new SemaphoreOptions(in.readLong(), policy(in.readByte()), in.readInt()));
      case 2 -> new Operation.Delete(readName(in));
      case 3 -> new Operation.SetValue(readName(in), in.readLong());
      case 4 -> new Operation.Increment(readName(in), in.readLong());
      case 5 ->
          new Operation.Decrement(readName(in), in.readLong(), in.readLong(), in.readBoolean());
      case 6 -> new Operation.Acquire(readName(in), in.readLong(), in.readLong(), in.readBoolean());
      case 7 ->
          new Operation.AcquireLease(readName(in), in.readLong(), in.readLong(), in.readLong());
      case 8 -> new Operation.AwaitZero(readName(in), in.readLong());
      case 9 -> {
        int n = in.readInt();
        if (n < 0 || n > 1 << 20) {
          throw new IOException("corrupt entry: a semop of " + n + " ops");
        }
        List<SemopOp> ops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          ops.add(new SemopOp(readName(in), in.readLong(), in.readBoolean(), in.readBoolean()));
        }
        yield new Operation.Semop(ops, in.readLong());
      }
      case 10 -> new Operation.Release(readName(in), in.readLong());
      case 11 -> new Operation.ReleaseSlot(readName(in), in.readLong());
      case 12 -> new Operation.RenewLease(in.readLong(), in.readLong());
      case 13 -> new Operation.ReleaseLease(in.readLong());
      case 14 -> new Operation.AddToWaitMany(in.readLong(), readName(in), in.readLong());
      case 15 -> new Operation.RemoveFromWaitMany(in.readLong(), readName(in));
      case 16 -> new Operation.WaitMany(in.readLong(), in.readLong());
      case 17 -> new Operation.Cancel(in.readLong());
      case 18 -> new Operation.CloseSession();
      case 19 -> new Operation.EndSession(in.readLong());
      case 20 -> new Operation.RenewLease(in.readLong(), in.readLong(), readName(in));
      case 21 -> new Operation.ReleaseLease(in.readLong(), readName(in));
      case 22 -> new Operation.RenewLease(in.readLong(), in.readLong(), readName(in), true);
      case 23 -> new Operation.ReleaseLease(in.readLong(), readName(in), true);
      default -> throw new IOException("unknown operation tag " + tag);
    };
  }

  /** Writes {@code query} in the log's encoding. */
  public static void writeQuery(DataOutput out, Query query) throws IOException {
    if (query instanceof Query.Get g) {
      out.writeByte(1);
      writeName(out, g.name());
    } else if (query instanceof Query.Inspect i) {
      // tag 2, a name alone, is the first page of the unpaged form found in older logs
      out.writeByte(4);
      writeName(out, i.name());
      out.writeInt(i.limit());
      out.writeLong(i.from().queue());
      out.writeLong(i.from().holders());
      out.writeLong(i.from().leases());
      out.writeInt(i.budgetBytes());
    } else if (query instanceof Query.ListNames l) {
      // tag 3 is a list of names alone, also what logs written before statuses were asked hold
      out.writeByte(l.withStatus() ? 6 : 3);
      writeName(out, l.prefix());
      out.writeInt(l.limit());
      Name after = l.after();
      out.writeBoolean(after != null);
      if (after != null) {
        writeName(out, after);
      }
    } else if (query instanceof Query.ListSessions l) {
      out.writeByte(5);
      out.writeInt(l.limit());
      out.writeLong(l.after());
    } else if (query instanceof Query.Barrier) {
      out.writeByte(7);
    } else {
      throw new IllegalArgumentException("no encoding for " + query);
    }
  }

  /**
   * Reads a query written by {@link #writeQuery}.
   *
   * @throws IOException if the bytes are not a query
   */
  public static Query readQuery(DataInput in) throws IOException {
    int tag = in.readByte();
    return switch (tag) {
      case 1 -> new Query.Get(readName(in));
      case 2 -> new Query.Inspect(readName(in));
      case 3, 6 -> {
        Name prefix = readName(in);
        int limit = in.readInt();
        @Nullable Name after = in.readBoolean() ? readName(in) : null;
        yield new Query.ListNames(prefix, limit, after, tag == 6);
      }
      case 4 -> {
        Name name = readName(in);
        int limit = in.readInt();
        Query.Position from = new Query.Position(in.readLong(), in.readLong(), in.readLong());
        yield new Query.Inspect(name, limit, from, in.readInt());
      }
      case 5 -> new Query.ListSessions(in.readInt(), in.readLong());
      case 7 -> new Query.Barrier();
      default -> throw new IOException("unknown query tag " + tag);
    };
  }

  private static Policy policy(int number) throws IOException {
    try {
      return Policy.ofNumber(number);
    } catch (IllegalArgumentException e) {
      throw new IOException("unknown policy " + number, e);
    }
  }

  private static void writeName(DataOutput out, Name name) throws IOException {
    byte[] bytes = name.toBytes();
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static Name readName(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > 1 << 20) {
      throw new IOException("corrupt entry: a name of " + n + " bytes");
    }
    byte[] bytes = new byte[n];
    in.readFully(bytes);
    return Name.ofBytes(bytes);
  }

  private static void writeLongs(DataOutput out, List<Long> values) throws IOException {
    out.writeInt(values.size());
    for (long v : values) {
      out.writeLong(v);
    }
  }

  private static List<Long> readLongs(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > 1 << 24) {
      throw new IOException("corrupt entry: " + n + " acknowledgements");
    }
    List<Long> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      values.add(in.readLong());
    }
    return values;
  }
}
