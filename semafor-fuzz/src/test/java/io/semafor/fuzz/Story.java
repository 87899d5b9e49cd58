package io.semafor.fuzz;

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
import java.time.Duration;
import java.util.List;

/**
 * The seeds' material: one session's story that uses every operation, leaving waiters of each kind
 * (a decrement, a {@code semop}, a lease and a {@code WaitMany} call) queued on the way, and every
 * other command and query. Session 1 is the one {@link #OPEN} opens on a new machine.
 */
public final class Story {
  private Story() {}

  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final Name A = Name.of("a");
  private static final Name B = Name.of("b");

  /** Opens session 1 on a new machine. */
  public static final Command OPEN =
      new Command.OpenSession(10 * SECOND, new ClientInfo("seed", "localhost", 42));

  /** The semaphores every later operation names: a slotted "a" of 2, a barging "b" at 0. */
  public static final List<Operation> SETUP =
      List.of(
          new Operation.Create(A, 2, new SemaphoreOptions(2, Policy.FIFO, 2)),
          new Operation.Create(B, 0, new SemaphoreOptions(0, Policy.BARGING, 0)));

  /** Every operation kind at least once, in an order where each does something. */
  public static final List<Operation> OPERATIONS =
      List.of(
          new Operation.Acquire(A, 1, 0, true),
          new Operation.Decrement(B, 1, SECOND, false),
          new Operation.Semop(
              List.of(new SemopOp(B, -1, false, true), new SemopOp(A, 1, false, false)), SECOND),
          new Operation.AcquireLease(B, 1, 5 * SECOND, SECOND),
          new Operation.AddToWaitMany(7, B, 1),
          new Operation.AddToWaitMany(7, A, 1),
          new Operation.WaitMany(7, SECOND),
          new Operation.Increment(B, 5),
          new Operation.AcquireLease(A, 1, 5 * SECOND, 0),
          new Operation.RenewLease(1, 10 * SECOND),
          new Operation.RenewLease(2, 10 * SECOND, A),
          new Operation.ReleaseLease(1),
          new Operation.ReleaseLease(2, B),
          new Operation.AwaitZero(B, SECOND),
          new Operation.SetValue(B, 0),
          new Operation.Release(A, 1),
          new Operation.Acquire(A, 1, 0, true),
          new Operation.ReleaseSlot(A, 1),
          new Operation.RemoveFromWaitMany(7, A),
          new Operation.Decrement(B, 1, -1, true),
          new Operation.Cancel(20),
          new Operation.EndSession(99),
          new Operation.Delete(B),
          new Operation.CloseSession());

  /** Every query kind. */
  public static final List<Query> QUERIES =
      List.of(
          new Query.Get(A),
          new Query.Inspect(A, 10, Query.Position.START, 0),
          new Query.ListNames(Name.ofBytes(new byte[0]), 10, null, false),
          new Query.ListNames(Name.of("a"), 10, A, true),
          new Query.ListSessions(10, 0));

  /** The commands the edge proposes itself, each of every other kind. */
  public static final List<Command> EDGE_COMMANDS =
      List.of(
          new Command.OpenSession(SECOND),
          new Command.OpenSession(
              SECOND,
              new ClientInfo("seed", "localhost", 42),
              new SessionOwner("alice", new Secret(1, 2)),
              new Secret(3, 4)),
          new Command.Acknowledge(1, List.of(1L, 2L, 3L)),
          new Command.ExpireWaiter(1, 4),
          new Command.ExpireLease(1),
          new Command.ExpireSession(1),
          new Command.ContinueGrants());

  /** Session 1's request {@code id} doing {@code op}, acknowledging the reply before it. */
  public static Command request(long id, Operation op) {
    return new Command.Request(1, id, id > 1 ? List.of(id - 1) : List.of(), op);
  }
}
