package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.protocol.v1.Inspect;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.ReadResponse;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Follows a semaphore's inspection pages into one {@link SemaphoreInfo}: each list is taken until a
 * page says it has no more or it holds {@code maxPerList} entries, and from then on is skipped
 * (asked after 2^63-1, which the server answers with nothing at no cost). Not thread-safe: one
 * reading at a time, page after page.
 */
final class Inspection {
  /** Entries per list per page: the most a server shows. */
  static final int PAGE = 4_096;

  /** The position after every entry: skips a list. */
  private static final long SKIP = Long.MAX_VALUE;

  private final ByteString name;
  private final int maxPerList;
  private final List<SemaphoreInfo.Waiter> queue = new ArrayList<>();
  private final List<SemaphoreInfo.Holder> holders = new ArrayList<>();
  private final List<SemaphoreInfo.LeaseInfo> leases = new ArrayList<>();
  private boolean queueDone;
  private boolean holdersDone;
  private boolean leasesDone;
  private InspectionCursor next = InspectionCursor.START;
  private @Nullable InspectionPage last;

  Inspection(ByteString name, int maxPerList) {
    if (maxPerList < 1) {
      throw new IllegalArgumentException("maxPerList must be positive, was " + maxPerList);
    }
    this.name = name;
    this.maxPerList = maxPerList;
  }

  /** The read of one page at {@code from}, {@code limit} entries per list (0: the server's). */
  static Read.Builder pageRead(ByteString name, InspectionCursor from, int limit) {
    return Read.newBuilder()
        .setInspect(
            Inspect.newBuilder()
                .setName(name)
                .setLimit(limit)
                .setQueueAfter(from.queueAfter())
                .setHoldersAfter(from.holdersAfter())
                .setLeasesAfter(from.leasesAfter()));
  }

  /** The read of the next page. */
  Read.Builder nextRead() {
    return pageRead(
        name,
        new InspectionCursor(
            queueDone ? SKIP : next.queueAfter(),
            holdersDone ? SKIP : next.holdersAfter(),
            leasesDone ? SKIP : next.leasesAfter()),
        Math.min(PAGE, maxPerList));
  }

  /** Takes a page's answer; returns true once every list is done. */
  boolean take(ReadResponse answer) {
    InspectionPage page = Infos.page(answer);
    if (!queueDone) {
      queueDone = add(queue, page.info().queue(), page.queueMore());
    }
    if (!holdersDone) {
      holdersDone = add(holders, page.info().holderList(), page.holdersMore());
    }
    if (!leasesDone) {
      leasesDone = add(leases, page.info().leases(), page.leasesMore());
    }
    next = page.next();
    last = page;
    return queueDone && holdersDone && leasesDone;
  }

  /** Adds a page of one list; returns whether that list is done. */
  private <T> boolean add(List<T> list, List<T> page, boolean more) {
    for (T entry : page) {
      if (list.size() == maxPerList) {
        return true;
      }
      list.add(entry);
    }
    return !more || list.size() == maxPerList;
  }

  /** The joined view: the last page's summary and revision with every list read. */
  SemaphoreInfo result() {
    InspectionPage page = last;
    if (page == null) {
      throw new IllegalStateException("no page read yet");
    }
    SemaphoreInfo s = page.info();
    return new SemaphoreInfo(
        s.name(),
        s.value(),
        s.options(),
        s.waiters(),
        s.holders(),
        s.leaseCount(),
        s.owned(),
        s.leased(),
        s.undelivered(),
        s.revision(),
        queue,
        holders,
        leases);
  }
}
