package io.semafor.server.wire;

import com.google.protobuf.ByteString;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.core.SemopOp;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Inspect;
import io.semafor.protocol.v1.ListNames;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Turns wire requests into the machine's operations and queries. Checks only what the machine
 * cannot see (a missing operation, an unknown enum value); everything else is the machine's to
 * refuse, so errors come out the same whatever the transport.
 */
public final class WireRequests {
  private WireRequests() {}

  /** A request the machine cannot be given; answered with INVALID_ARGUMENT naming {@code field}. */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;
    private final String reason;

    Malformed(String field, String problem) {
      super(field + ": " + problem, null, false, false);
      this.reason = field + ": " + problem;
    }

    public String reason() {
      return reason;
    }
  }

  public static Operation operation(Request r) throws Malformed {
    return switch (r.getOpCase()) {
      case CREATE -> create(r.getCreate());
      case DELETE -> new Operation.Delete(name(r.getDelete().getName()));
      case SET_VALUE ->
          new Operation.SetValue(name(r.getSetValue().getName()), r.getSetValue().getValue());
      case INCREMENT ->
          new Operation.Increment(name(r.getIncrement().getName()), r.getIncrement().getAmount());
      case DECREMENT ->
          new Operation.Decrement(
              name(r.getDecrement().getName()),
              r.getDecrement().getAmount(),
              r.getDecrement().getTimeoutNs(),
              r.getDecrement().getOwned());
      case ACQUIRE ->
          new Operation.Acquire(
              name(r.getAcquire().getName()),
              r.getAcquire().getAmount(),
              r.getAcquire().getTimeoutNs(),
              r.getAcquire().getOwned());
      case ACQUIRE_LEASE ->
          new Operation.AcquireLease(
              name(r.getAcquireLease().getName()),
              r.getAcquireLease().getAmount(),
              r.getAcquireLease().getLeaseTtlNs(),
              r.getAcquireLease().getTimeoutNs());
      case AWAIT_ZERO ->
          new Operation.AwaitZero(
              name(r.getAwaitZero().getName()), r.getAwaitZero().getTimeoutNs());
      case SEMOP -> semop(r.getSemop());
      case RELEASE ->
          new Operation.Release(name(r.getRelease().getName()), r.getRelease().getAmount());
      case RELEASE_SLOT ->
          new Operation.ReleaseSlot(
              name(r.getReleaseSlot().getName()), r.getReleaseSlot().getSlot());
      case RENEW_LEASE ->
          new Operation.RenewLease(
              r.getRenewLease().getPermitId(),
              r.getRenewLease().getTtlNs(),
              optionalName(r.getRenewLease().getName()));
      case RELEASE_LEASE ->
          new Operation.ReleaseLease(
              r.getReleaseLease().getPermitId(), optionalName(r.getReleaseLease().getName()));
      case ADD_TO_WAIT_MANY ->
          new Operation.AddToWaitMany(
              r.getAddToWaitMany().getListId(),
              name(r.getAddToWaitMany().getName()),
              r.getAddToWaitMany().getAmount());
      case REMOVE_FROM_WAIT_MANY ->
          new Operation.RemoveFromWaitMany(
              r.getRemoveFromWaitMany().getListId(), name(r.getRemoveFromWaitMany().getName()));
      case WAIT_MANY ->
          new Operation.WaitMany(r.getWaitMany().getListId(), r.getWaitMany().getTimeoutNs());
      case CANCEL -> new Operation.Cancel(r.getCancel().getRequestId());
      case CLOSE_SESSION -> new Operation.CloseSession();
      case END_SESSION -> new Operation.EndSession(r.getEndSession().getSessionId());
      case OP_NOT_SET -> throw new Malformed("op", "the request names no operation");
    };
  }

  private static Operation create(Create c) throws Malformed {
    Policy policy =
        switch (c.getPolicy()) {
          case POLICY_UNSPECIFIED, FIFO -> Policy.FIFO;
          case BARGING -> Policy.BARGING;
          case UNRECOGNIZED ->
              throw new Malformed("policy", "unknown policy number " + c.getPolicyValue());
        };
    return new Operation.Create(
        name(c.getName()),
        c.getInitial(),
        new SemaphoreOptions(c.getCapacity(), policy, c.getMaxPerSession()));
  }

  private static Operation semop(io.semafor.protocol.v1.Semop s) {
    List<SemopOp> ops = new ArrayList<>(s.getOpsCount());
    for (io.semafor.protocol.v1.SemopOp o : s.getOpsList()) {
      ops.add(new SemopOp(name(o.getName()), o.getDelta(), o.getNoWait(), o.getOwned()));
    }
    return new Operation.Semop(ops, s.getTimeoutNs());
  }

  /**
   * The query a read asks for. An inspection page's entries are budgeted at half of {@code
   * maxFrameBytes} (at most the core's default), so that the answer with its summary fits in a
   * frame.
   */
  public static Query query(Read r, int maxFrameBytes) throws Malformed {
    return switch (r.getQueryCase()) {
      case GET -> new Query.Get(name(r.getGet().getName()));
      case INSPECT -> {
        Inspect i = r.getInspect();
        yield new Query.Inspect(
            name(i.getName()),
            i.getLimit(),
            new Query.Position(i.getQueueAfter(), i.getHoldersAfter(), i.getLeasesAfter()),
            Math.min(Query.Inspect.DEFAULT_BUDGET_BYTES, maxFrameBytes / 2));
      }
      case LIST_NAMES -> {
        ListNames l = r.getListNames();
        yield new Query.ListNames(
            Name.ofBytes(l.getPrefix().toByteArray()),
            l.getLimit(),
            l.getHasAfter() ? Name.ofBytes(l.getAfter().toByteArray()) : null,
            l.getWithStatus());
      }
      case LIST_SESSIONS ->
          new Query.ListSessions(r.getListSessions().getLimit(), r.getListSessions().getAfter());
      case QUERY_NOT_SET -> throw new Malformed("query", "the read names no query");
    };
  }

  private static Name name(ByteString bytes) {
    return Name.ofBytes(bytes.toByteArray());
  }

  /** A lease's semaphore, if the request names it (empty: any semaphore's lease). */
  private static @Nullable Name optionalName(ByteString bytes) {
    return bytes.isEmpty() ? null : name(bytes);
  }
}
