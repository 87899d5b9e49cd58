package io.semafor.server.wire;

import com.google.protobuf.ByteString;
import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.protocol.v1.Cancelled;
import io.semafor.protocol.v1.Created;
import io.semafor.protocol.v1.Deleted;
import io.semafor.protocol.v1.Failure;
import io.semafor.protocol.v1.Granted;
import io.semafor.protocol.v1.HolderView;
import io.semafor.protocol.v1.Incremented;
import io.semafor.protocol.v1.LeaseGranted;
import io.semafor.protocol.v1.LeaseReleased;
import io.semafor.protocol.v1.LeaseRenewed;
import io.semafor.protocol.v1.LeaseView;
import io.semafor.protocol.v1.NameList;
import io.semafor.protocol.v1.Options;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.Released;
import io.semafor.protocol.v1.Report;
import io.semafor.protocol.v1.Response;
import io.semafor.protocol.v1.SemaphoreDetail;
import io.semafor.protocol.v1.SemaphoreStatus;
import io.semafor.protocol.v1.SemopDone;
import io.semafor.protocol.v1.SessionClosed;
import io.semafor.protocol.v1.Slots;
import io.semafor.protocol.v1.ValueSet;
import io.semafor.protocol.v1.WaitManyAdded;
import io.semafor.protocol.v1.WaitManyRemoved;
import io.semafor.protocol.v1.WaitManyReported;
import io.semafor.protocol.v1.WaiterView;
import io.semafor.protocol.v1.WatchEvent;
import io.semafor.protocol.v1.ZeroReached;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * Turns the machine's results into wire responses. Times the machine keeps as log-time instants go
 * out as durations from {@code logTime}, the log time of the reply: clients never see the server's
 * clock.
 */
public final class WireResults {
  private WireResults() {}

  public static Response response(Reply reply, long logTime) {
    Response.Builder b =
        Response.newBuilder().setId(reply.requestId()).setRevision(reply.revision());
    Result result = reply.result();
    if (result instanceof Result.Failure f) {
      b.setFailure(failure(f.code(), f.message()));
    } else if (result instanceof Result.Granted g) {
      b.setGranted(
          Granted.newBuilder()
              .setAmount(g.amount())
              .setToken(g.token())
              .setSequence(g.sequence())
              .addAllSlots(g.slots()));
    } else if (result instanceof Result.Released r) {
      b.setReleased(Released.newBuilder().setAmount(r.amount()));
    } else if (result instanceof Result.Incremented r) {
      b.setIncremented(Incremented.newBuilder().setValue(r.value()));
    } else if (result instanceof Result.Created r) {
      b.setCreated(
          Created.newBuilder()
              .setCreated(r.created())
              .setOptions(options(r.options()))
              .setValue(r.value()));
    } else if (result instanceof Result.Deleted) {
      b.setDeleted(Deleted.getDefaultInstance());
    } else if (result instanceof Result.ValueSet r) {
      b.setValueSet(ValueSet.newBuilder().setPrevious(r.previous()));
    } else if (result instanceof Result.LeaseGranted r) {
      b.setLeaseGranted(
          LeaseGranted.newBuilder()
              .setPermitId(r.permitId())
              .setAmount(r.amount())
              .setToken(r.token())
              .setSequence(r.sequence())
              .addAllSlots(r.slots())
              .setExpiresInNs(r.granted() ? Math.max(0, r.expiresAt() - logTime) : 0));
    } else if (result instanceof Result.ZeroReached r) {
      b.setZeroReached(ZeroReached.newBuilder().setReached(r.reached()).setSequence(r.sequence()));
    } else if (result instanceof Result.SemopDone r) {
      SemopDone.Builder s =
          SemopDone.newBuilder().setDone(r.done()).setToken(r.token()).setSequence(r.sequence());
      for (List<Long> slots : r.slots()) {
        s.addSlots(Slots.newBuilder().addAllSlots(slots));
      }
      b.setSemopDone(s);
    } else if (result instanceof Result.LeaseReleased r) {
      b.setLeaseReleased(LeaseReleased.newBuilder().setReleased(r.released()));
    } else if (result instanceof Result.LeaseRenewed r) {
      b.setLeaseRenewed(
          LeaseRenewed.newBuilder().setExpiresInNs(Math.max(0, r.expiresAt() - logTime)));
    } else if (result instanceof Result.WaitManyAdded r) {
      b.setWaitManyAdded(
          WaitManyAdded.newBuilder().setGranted(r.granted()).setPending(r.pending()));
    } else if (result instanceof Result.WaitManyRemoved r) {
      b.setWaitManyRemoved(
          WaitManyRemoved.newBuilder().setRemoved(r.removed()).setReturned(r.returned()));
    } else if (result instanceof Result.WaitManyReported r) {
      WaitManyReported.Builder w = WaitManyReported.newBuilder();
      for (Result.Report report : r.reports()) {
        w.addReports(
            Report.newBuilder()
                .setName(bytes(report.name()))
                .setGranted(report.granted())
                .setToken(report.token()));
      }
      b.setWaitManyReported(w);
    } else if (result instanceof Result.Cancelled r) {
      b.setCancelled(Cancelled.newBuilder().setCancelled(r.cancelled()));
    } else if (result instanceof Result.SessionClosed) {
      b.setSessionClosed(SessionClosed.getDefaultInstance());
    } else if (result instanceof Result.SessionEnded r) {
      b.setSessionEnded(
          io.semafor.protocol.v1.SessionEnded.newBuilder().setSessionId(r.sessionId()));
    } else {
      throw new IllegalStateException("no wire form for a request's " + result);
    }
    return b.build();
  }

  /** A read's answer, with no session's last-heard time known. */
  public static ReadResponse readResponse(long readId, Reply reply, long logTime) {
    return readResponse(readId, reply, logTime, id -> -1);
  }

  /**
   * A read's answer; {@code sinceHeard} says how long ago a session's client was last heard from
   * ({@link Sessions#sinceHeard}), -1 if unknown, for a session list.
   */
  public static ReadResponse readResponse(
      long readId, Reply reply, long logTime, LongUnaryOperator sinceHeard) {
    ReadResponse.Builder b = ReadResponse.newBuilder().setId(readId).setRevision(reply.revision());
    Result result = reply.result();
    if (result instanceof Result.Failure f) {
      b.setFailure(failure(f.code(), f.message()));
    } else if (result instanceof Result.SemaphoreStatus s) {
      b.setStatus(status(s));
    } else if (result instanceof Result.SemaphoreDetail d) {
      b.setDetail(detail(d, logTime));
    } else if (result instanceof Result.NameList n) {
      NameList.Builder names = NameList.newBuilder().setMore(n.more());
      for (Name name : n.names()) {
        names.addNames(bytes(name));
      }
      for (Result.SemaphoreStatus s : n.statuses()) {
        names.addStatuses(status(s));
      }
      b.setNames(names);
    } else if (result instanceof Result.SessionList list) {
      io.semafor.protocol.v1.SessionList.Builder sessions =
          io.semafor.protocol.v1.SessionList.newBuilder().setMore(list.more());
      for (Result.SessionView s : list.sessions()) {
        io.semafor.protocol.v1.SessionView.Builder view =
            io.semafor.protocol.v1.SessionView.newBuilder()
                .setSessionId(s.sessionId())
                .setClient(client(s.client()))
                .setPrincipal(s.principal())
                .setTtlNs(s.ttl())
                .setAgeNs(Math.max(0, logTime - s.openedAt()))
                .setSinceCommandNs(Math.max(0, logTime - s.lastSeen()))
                .setHoldings(s.holdings())
                .setWaiting(s.waiting())
                .setUnacked(s.unacked());
        long heard = sinceHeard.applyAsLong(s.sessionId());
        if (heard >= 0) {
          view.setSinceHeardNs(heard);
        }
        sessions.addSessions(view);
      }
      b.setSessions(sessions);
    } else {
      throw new IllegalStateException("no wire form for a read's " + result);
    }
    return b.build();
  }

  public static Failure failure(ErrorCode code, String message) {
    return Failure.newBuilder()
        .setCode(io.semafor.protocol.v1.ErrorCode.forNumber(code.number()))
        .setMessage(message)
        .build();
  }

  /** NOT_LEADER, saying where the leader is (if known). */
  public static Failure notLeader(String leaderHint) {
    return Failure.newBuilder()
        .setCode(io.semafor.protocol.v1.ErrorCode.NOT_LEADER)
        .setMessage(
            leaderHint.isEmpty()
                ? "this node is not the leader, and no leader is known yet; try another"
                : "this node is not the leader; the leader is " + leaderHint)
        .setLeader(leaderHint)
        .build();
  }

  private static io.semafor.protocol.v1.ClientInfo client(ClientInfo c) {
    return io.semafor.protocol.v1.ClientInfo.newBuilder()
        .setName(c.name())
        .setHost(c.host())
        .setPid(c.pid())
        .build();
  }

  private static SemaphoreStatus status(Result.SemaphoreStatus s) {
    return SemaphoreStatus.newBuilder()
        .setName(bytes(s.name()))
        .setValue(s.value())
        .setOptions(options(s.options()))
        .setWaiters(s.waiters())
        .setHolders(s.holders())
        .setLeases(s.leases())
        .setOwned(s.owned())
        .setLeased(s.leased())
        .setUndelivered(s.undelivered())
        .build();
  }

  /** A watch's event (decision 0041); times in its state are counted from {@code logTime}. */
  public static WatchEvent watchEvent(io.semafor.server.watch.WatchEvent e, long logTime) {
    WatchEvent.Builder b = WatchEvent.newBuilder().setId(e.id()).setRevision(e.revision());
    if (e instanceof io.semafor.server.watch.WatchEvent.Changed c) {
      b.setKind(WatchEvent.Kind.CHANGED).setName(bytes(c.name()));
      if (c.state() instanceof Result.SemaphoreDetail d) {
        b.setDetail(detail(d, logTime));
      } else if (c.state() instanceof Result.SemaphoreStatus st) {
        b.setStatus(status(st));
      }
    } else if (e instanceof io.semafor.server.watch.WatchEvent.Deleted d) {
      b.setKind(WatchEvent.Kind.DELETED).setName(bytes(d.name()));
    } else if (e instanceof io.semafor.server.watch.WatchEvent.Synced) {
      b.setKind(WatchEvent.Kind.SYNCED);
    } else {
      b.setKind(WatchEvent.Kind.RESYNC);
    }
    return b.build();
  }

  /**
   * A state's bytes as a {@code WatchEvent}'s {@code detail} or {@code status} field holds them.
   */
  public static byte[] watchedState(Result state, long logTime) {
    if (state instanceof Result.SemaphoreDetail d) {
      return detail(d, logTime).toByteArray();
    }
    return status((Result.SemaphoreStatus) state).toByteArray();
  }

  /** A watch that ended, or was refused: why. */
  public static WatchEvent watchFailed(long id, ErrorCode code, String message) {
    return WatchEvent.newBuilder()
        .setId(id)
        .setKind(WatchEvent.Kind.FAILED)
        .setFailure(failure(code, message))
        .build();
  }

  public static SemaphoreDetail detail(Result.SemaphoreDetail d, long logTime) {
    SemaphoreDetail.Builder b =
        SemaphoreDetail.newBuilder()
            .setStatus(status(d.status()))
            .setQueueNext(d.next().queue())
            .setHoldersNext(d.next().holders())
            .setLeasesNext(d.next().leases())
            .setQueueMore(d.queueMore())
            .setHoldersMore(d.holdersMore())
            .setLeasesMore(d.leasesMore());
    for (Result.WaiterView w : d.queue()) {
      b.addQueue(
          WaiterView.newBuilder()
              .setSessionId(w.sessionId())
              .setRequestId(w.requestId())
              .setSequence(w.sequence())
              .setKind(w.kind())
              .setAmount(w.amount())
              .setTimesOutInNs(w.deadline() < 0 ? -1 : Math.max(0, w.deadline() - logTime))
              .setClient(client(w.client())));
    }
    for (Result.HolderView h : d.holders()) {
      b.addHolders(
          HolderView.newBuilder()
              .setSessionId(h.sessionId())
              .setOwned(h.owned())
              .addAllSlots(h.slots())
              .setClient(client(h.client())));
    }
    for (Result.LeaseView l : d.leases()) {
      b.addLeases(
          LeaseView.newBuilder()
              .setPermitId(l.permitId())
              .setSessionId(l.sessionId())
              .setAmount(l.amount())
              .addAllSlots(l.slots())
              .setToken(l.token())
              .setAgeNs(Math.max(0, logTime - l.grantedAt()))
              .setExpiresInNs(Math.max(0, l.expiresAt() - logTime)));
    }
    return b.build();
  }

  private static Options options(SemaphoreOptions o) {
    return Options.newBuilder()
        .setCapacity(o.capacity())
        .setPolicy(
            o.policy() == Policy.BARGING
                ? io.semafor.protocol.v1.Policy.BARGING
                : io.semafor.protocol.v1.Policy.FIFO)
        .setMaxPerSession(o.maxPerSession())
        .build();
  }

  private static ByteString bytes(Name name) {
    return ByteString.copyFrom(name.toBytes());
  }
}
