package io.semafor.replication.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The log's encoding: every command, operation and read comes back as it went in. */
class EntryTest {
  private static final Name X = Name.of("printers/é");

  private static final List<Operation> EVERY_OPERATION =
      List.of(
          new Operation.Create(X, 3, new SemaphoreOptions(5, Policy.BARGING, 2)),
          new Operation.Delete(X),
          new Operation.SetValue(X, 7),
          new Operation.Increment(X, 2),
          new Operation.Decrement(X, 4, Operation.FOREVER, true),
          new Operation.Acquire(X, 1, 0, false),
          new Operation.AcquireLease(X, 1, 30_000_000_000L, 5),
          new Operation.AwaitZero(X, 9),
          new Operation.Semop(
              List.of(new SemopOp(X, -1, true, false), new SemopOp(Name.of("b"), 2, false, true)),
              11),
          new Operation.Release(X, 1),
          new Operation.ReleaseSlot(X, 3),
          new Operation.RenewLease(12, 13),
          new Operation.RenewLease(12, 13, X),
          new Operation.ReleaseLease(14),
          new Operation.ReleaseLease(14, X),
          new Operation.RenewLease(12, 13, X, true),
          new Operation.ReleaseLease(14, X, true),
          new Operation.AddToWaitMany(1, X, 5),
          new Operation.RemoveFromWaitMany(1, X),
          new Operation.WaitMany(1, 15),
          new Operation.Cancel(16),
          new Operation.CloseSession(),
          new Operation.EndSession(17));

  private static Entry roundTrip(Entry entry) throws IOException {
    return Entry.decode(new ByteArrayInputStream(entry.encode()));
  }

  @Test
  void everyOperationSurvivesTheLog() throws IOException {
    List<Entry.Item> items =
        EVERY_OPERATION.stream()
            .map(op -> (Entry.Item) new Entry.Op(new Command.Request(42, 7, List.of(1L, 2L), op)))
            .toList();
    assertThat(roundTrip(new Entry(123, "n1", 9, items))).isEqualTo(new Entry(123, "n1", 9, items));
  }

  @Test
  void everyOtherCommandAndEveryReadSurvivesTheLog() throws IOException {
    List<Entry.Item> items =
        List.of(
            new Entry.Op(new Command.OpenSession(10_000_000_000L)),
            new Entry.Op(new Command.OpenSession(1L, new ClientInfo("semafor-cli", "hôte", 1234))),
            new Entry.Op(
                new Command.OpenSession(
                    2L,
                    new ClientInfo("semafor-cli", "hôte", 1234),
                    new SessionOwner("alice", new Secret(1, -2)),
                    new Secret(-3, 4))),
            new Entry.Op(new Command.ExpireSession(3)),
            new Entry.Op(new Command.ExpireWaiter(3, 4)),
            new Entry.Op(
                new Command.RefuseWaiter(
                    3, 4, io.semafor.ErrorCode.PERMISSION_DENIED, "permission 'acquire' …")),
            new Entry.Op(new Command.ExpireLease(5)),
            new Entry.Op(new Command.Acknowledge(3, List.of(6L, 7L))),
            new Entry.Read(1, new Query.Get(X)),
            new Entry.Read(2, new Query.Inspect(X)),
            new Entry.Read(5, new Query.Inspect(X, 7, new Query.Position(1, 2, 3), 4_096)),
            new Entry.Read(3, new Query.ListNames(Name.of("p"), 100, X)),
            new Entry.Read(4, new Query.ListNames(Name.of(""), 1, null)),
            new Entry.Read(5, new Query.Barrier()),
            new Entry.Read(6, new Query.ListNames(Name.of("p"), 200, X, true)),
            new Entry.Read(7, new Query.ListSessions(1000, 41)));
    assertThat(roundTrip(new Entry(-5, "node-2", 1, items)))
        .isEqualTo(new Entry(-5, "node-2", 1, items));
  }

  @Test
  void anInspectionInALogWrittenBeforePagingReadsAsTheFirstPage() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(1); // entry version
      out.writeLong(7); // log time
      out.writeUTF("n1");
      out.writeLong(2); // batch
      out.writeInt(1); // items
      out.writeByte(1); // a read
      out.writeLong(9); // its id
      out.writeByte(2); // the unpaged inspection: a name alone
      byte[] name = X.toBytes();
      out.writeInt(name.length);
      out.write(name);
    }
    assertThat(Entry.decode(new ByteArrayInputStream(bytes.toByteArray())).items())
        .containsExactly(new Entry.Read(9, new Query.Inspect(X)));
  }

  @Test
  void anEntryOfAnotherVersionIsRefused() {
    byte[] bytes = new Entry(1, "n1", 1, List.of()).encode();
    bytes[0] = 9;
    assertThatThrownBy(() -> Entry.decode(new ByteArrayInputStream(bytes)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 9");
  }
}
