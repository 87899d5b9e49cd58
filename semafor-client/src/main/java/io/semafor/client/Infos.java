package io.semafor.client;

import io.semafor.ClientInfo;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.protocol.v1.HolderView;
import io.semafor.protocol.v1.LeaseView;
import io.semafor.protocol.v1.Options;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.SemaphoreDetail;
import io.semafor.protocol.v1.SemaphoreStatus;
import io.semafor.protocol.v1.WaiterView;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Wire views of a semaphore into {@link SemaphoreInfo}. */
final class Infos {
  private Infos() {}

  static SemaphoreInfo status(ReadResponse r) {
    return status(r.getStatus(), r.getRevision());
  }

  /** A semaphore's summary alone, as of {@code revision}. */
  static SemaphoreInfo status(SemaphoreStatus s, long revision) {
    return info(s, revision, List.of(), List.of(), List.of());
  }

  /** One inspection page. */
  static InspectionPage page(ReadResponse r) {
    SemaphoreDetail d = r.getDetail();
    return new InspectionPage(
        detail(r),
        new InspectionCursor(d.getQueueNext(), d.getHoldersNext(), d.getLeasesNext()),
        d.getQueueMore(),
        d.getHoldersMore(),
        d.getLeasesMore());
  }

  /** An inspection page's summary and entries. */
  static SemaphoreInfo detail(ReadResponse r) {
    return detail(r.getDetail(), r.getRevision());
  }

  /** A semaphore's summary and one page of each list, as of {@code revision}. */
  static SemaphoreInfo detail(io.semafor.protocol.v1.SemaphoreDetail d, long revision) {
    List<SemaphoreInfo.Waiter> queue = new ArrayList<>();
    for (WaiterView w : d.getQueueList()) {
      queue.add(
          new SemaphoreInfo.Waiter(
              w.getSessionId(),
              w.getRequestId(),
              w.getSequence(),
              w.getKind(),
              w.getAmount(),
              w.getTimesOutInNs() < 0 ? null : Duration.ofNanos(w.getTimesOutInNs()),
              client(w.getClient())));
    }
    List<SemaphoreInfo.Holder> holders = new ArrayList<>();
    for (HolderView h : d.getHoldersList()) {
      holders.add(
          new SemaphoreInfo.Holder(
              h.getSessionId(), h.getOwned(), h.getSlotsList(), client(h.getClient())));
    }
    List<SemaphoreInfo.LeaseInfo> leases = new ArrayList<>();
    for (LeaseView l : d.getLeasesList()) {
      leases.add(
          new SemaphoreInfo.LeaseInfo(
              l.getPermitId(),
              l.getSessionId(),
              l.getAmount(),
              l.getSlotsList(),
              l.getToken(),
              Duration.ofNanos(l.getAgeNs()),
              Duration.ofNanos(l.getExpiresInNs())));
    }
    return info(d.getStatus(), revision, queue, holders, leases);
  }

  /** A list page's names with their states (from a list read that asked for them). */
  static List<SemaphoreInfo> statuses(ReadResponse r) {
    List<SemaphoreInfo> out = new ArrayList<>();
    for (SemaphoreStatus s : r.getNames().getStatusesList()) {
      out.add(info(s, r.getRevision(), List.of(), List.of(), List.of()));
    }
    return out;
  }

  static ClientInfo client(io.semafor.protocol.v1.ClientInfo c) {
    return new ClientInfo(c.getName(), c.getHost(), c.getPid());
  }

  static SessionInfo session(io.semafor.protocol.v1.SessionView s) {
    return new SessionInfo(
        s.getSessionId(),
        client(s.getClient()),
        s.getPrincipal(),
        Duration.ofNanos(s.getTtlNs()),
        Duration.ofNanos(s.getAgeNs()),
        Duration.ofNanos(s.getSinceCommandNs()),
        s.hasSinceHeardNs() ? Duration.ofNanos(s.getSinceHeardNs()) : null,
        s.getHoldings(),
        s.getWaiting(),
        s.getUnacked());
  }

  private static SemaphoreInfo info(
      SemaphoreStatus s,
      long revision,
      List<SemaphoreInfo.Waiter> queue,
      List<SemaphoreInfo.Holder> holders,
      List<SemaphoreInfo.LeaseInfo> leases) {
    return new SemaphoreInfo(
        s.getName().toString(StandardCharsets.UTF_8),
        s.getValue(),
        options(s.getOptions()),
        s.getWaiters(),
        s.getHolders(),
        s.getLeases(),
        s.getOwned(),
        s.getLeased(),
        s.getUndelivered(),
        revision,
        queue,
        holders,
        leases);
  }

  static SemaphoreOptions options(Options o) {
    return new SemaphoreOptions(
        o.getCapacity(),
        o.getPolicy() == io.semafor.protocol.v1.Policy.BARGING ? Policy.BARGING : Policy.FIFO,
        o.getMaxPerSession());
  }
}
