package io.semafor.server;

import com.google.protobuf.ByteString;
import io.semafor.Policy;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Query;
import io.semafor.protocol.v1.AcquireLease;
import io.semafor.protocol.v1.AddToWaitMany;
import io.semafor.protocol.v1.AwaitZero;
import io.semafor.protocol.v1.Cancel;
import io.semafor.protocol.v1.CloseSession;
import io.semafor.protocol.v1.Create;
import io.semafor.protocol.v1.Decrement;
import io.semafor.protocol.v1.Delete;
import io.semafor.protocol.v1.EndSession;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.Inspect;
import io.semafor.protocol.v1.ListNames;
import io.semafor.protocol.v1.ListSessions;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Release;
import io.semafor.protocol.v1.ReleaseLease;
import io.semafor.protocol.v1.ReleaseSlot;
import io.semafor.protocol.v1.RemoveFromWaitMany;
import io.semafor.protocol.v1.RenewLease;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.Semop;
import io.semafor.protocol.v1.SemopOp;
import io.semafor.protocol.v1.SetValue;
import io.semafor.protocol.v1.WaitMany;
import io.semafor.server.wire.WireRequests;

/** The wire form of the core's operations and queries: the inverse of {@link WireRequests}. */
final class WireForm {
  private WireForm() {}

  static Request request(long id, long ack, Operation op) {
    Request.Builder r = Request.newBuilder().setId(id);
    if (ack > 0) {
      r.addAcks(ack);
    }
    if (op instanceof Operation.Create c) {
      r.setCreate(
          Create.newBuilder()
              .setName(bytes(c.name()))
              .setInitial(c.initial())
              .setCapacity(c.options().capacity())
              .setPolicy(
                  c.options().policy() == Policy.BARGING
                      ? io.semafor.protocol.v1.Policy.BARGING
                      : io.semafor.protocol.v1.Policy.FIFO)
              .setMaxPerSession(c.options().maxPerSession()));
    } else if (op instanceof Operation.Delete d) {
      r.setDelete(Delete.newBuilder().setName(bytes(d.name())));
    } else if (op instanceof Operation.SetValue s) {
      r.setSetValue(SetValue.newBuilder().setName(bytes(s.name())).setValue(s.value()));
    } else if (op instanceof Operation.Increment i) {
      r.setIncrement(Increment.newBuilder().setName(bytes(i.name())).setAmount(i.amount()));
    } else if (op instanceof Operation.Decrement d) {
      r.setDecrement(
          Decrement.newBuilder()
              .setName(bytes(d.name()))
              .setAmount(d.amount())
              .setTimeoutNs(d.timeout())
              .setOwned(d.owned()));
    } else if (op instanceof Operation.Acquire a) {
      r.setAcquire(
          io.semafor.protocol.v1.Acquire.newBuilder()
              .setName(bytes(a.name()))
              .setAmount(a.amount())
              .setTimeoutNs(a.timeout())
              .setOwned(a.owned()));
    } else if (op instanceof Operation.AcquireLease l) {
      r.setAcquireLease(
          AcquireLease.newBuilder()
              .setName(bytes(l.name()))
              .setAmount(l.amount())
              .setLeaseTtlNs(l.leaseTtl())
              .setTimeoutNs(l.timeout()));
    } else if (op instanceof Operation.AwaitZero z) {
      r.setAwaitZero(AwaitZero.newBuilder().setName(bytes(z.name())).setTimeoutNs(z.timeout()));
    } else if (op instanceof Operation.Semop s) {
      Semop.Builder b = Semop.newBuilder().setTimeoutNs(s.timeout());
      for (io.semafor.core.SemopOp o : s.ops()) {
        b.addOps(
            SemopOp.newBuilder()
                .setName(bytes(o.name()))
                .setDelta(o.delta())
                .setNoWait(o.noWait())
                .setOwned(o.owned()));
      }
      r.setSemop(b);
    } else if (op instanceof Operation.Release x) {
      r.setRelease(Release.newBuilder().setName(bytes(x.name())).setAmount(x.amount()));
    } else if (op instanceof Operation.ReleaseSlot x) {
      r.setReleaseSlot(ReleaseSlot.newBuilder().setName(bytes(x.name())).setSlot(x.slot()));
    } else if (op instanceof Operation.RenewLease x) {
      RenewLease.Builder b = RenewLease.newBuilder().setPermitId(x.permitId()).setTtlNs(x.ttl());
      Name name = x.name();
      if (name != null) {
        b.setName(bytes(name));
      }
      r.setRenewLease(b);
    } else if (op instanceof Operation.ReleaseLease x) {
      ReleaseLease.Builder b = ReleaseLease.newBuilder().setPermitId(x.permitId());
      Name name = x.name();
      if (name != null) {
        b.setName(bytes(name));
      }
      r.setReleaseLease(b);
    } else if (op instanceof Operation.AddToWaitMany x) {
      r.setAddToWaitMany(
          AddToWaitMany.newBuilder()
              .setListId(x.listId())
              .setName(bytes(x.name()))
              .setAmount(x.amount()));
    } else if (op instanceof Operation.RemoveFromWaitMany x) {
      r.setRemoveFromWaitMany(
          RemoveFromWaitMany.newBuilder().setListId(x.listId()).setName(bytes(x.name())));
    } else if (op instanceof Operation.WaitMany x) {
      r.setWaitMany(WaitMany.newBuilder().setListId(x.listId()).setTimeoutNs(x.timeout()));
    } else if (op instanceof Operation.Cancel x) {
      r.setCancel(Cancel.newBuilder().setRequestId(x.requestId()));
    } else if (op instanceof Operation.CloseSession) {
      r.setCloseSession(CloseSession.getDefaultInstance());
    } else if (op instanceof Operation.EndSession x) {
      r.setEndSession(EndSession.newBuilder().setSessionId(x.sessionId()));
    } else {
      throw new IllegalArgumentException("no wire form for " + op);
    }
    return r.build();
  }

  static Read read(long id, Query query) {
    Read.Builder r = Read.newBuilder().setId(id);
    if (query instanceof Query.Get g) {
      r.setGet(Get.newBuilder().setName(bytes(g.name())));
    } else if (query instanceof Query.Inspect i) {
      r.setInspect(
          Inspect.newBuilder()
              .setName(bytes(i.name()))
              .setLimit(i.limit())
              .setQueueAfter(i.from().queue())
              .setHoldersAfter(i.from().holders())
              .setLeasesAfter(i.from().leases()));
    } else if (query instanceof Query.ListNames l) {
      ListNames.Builder b =
          ListNames.newBuilder()
              .setPrefix(bytes(l.prefix()))
              .setLimit(l.limit())
              .setWithStatus(l.withStatus());
      Name after = l.after();
      if (after != null) {
        b.setAfter(bytes(after)).setHasAfter(true);
      }
      r.setListNames(b);
    } else if (query instanceof Query.ListSessions l) {
      r.setListSessions(ListSessions.newBuilder().setLimit(l.limit()).setAfter(l.after()));
    } else {
      throw new IllegalArgumentException("no wire form for " + query);
    }
    return r.build();
  }

  private static ByteString bytes(Name name) {
    return ByteString.copyFrom(name.toBytes());
  }
}
