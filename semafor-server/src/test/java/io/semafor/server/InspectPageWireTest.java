package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.semafor.ClientInfo;
import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.Inspect;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.SemaphoreDetail;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.server.wire.WireRequests;
import io.semafor.server.wire.WireResults;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md#reads: an inspection page fits in a frame. The core budgets a page's entries by
 * upper bounds of their encoded size; these tests hold those bounds against the real encoding at
 * its worst (every number a 10-byte varint, the longest kind, slots just below 2^31, a name of
 * 1,024 bytes).
 */
class InspectPageWireTest {
  private static final long LOG_TIME = Long.MAX_VALUE;
  private static final String LONGEST_KIND = "decrement-owned";

  /** The longest client description a session may have: 255-byte name and host, a 10-byte pid. */
  private static final ClientInfo WORST_CLIENT =
      new ClientInfo("é".repeat(127) + "x", "h".repeat(255), -1);

  private static Result.WaiterView worstWaiter() {
    return new Result.WaiterView(-1, -1, -1, LONGEST_KIND, -1, -1, WORST_CLIENT);
  }

  private static Result.HolderView worstHolder(int slots) {
    return new Result.HolderView(
        -1, Long.MIN_VALUE, Collections.nCopies(slots, (long) Integer.MAX_VALUE), WORST_CLIENT);
  }

  private static Result.LeaseView worstLease(int slots) {
    return new Result.LeaseView(
        -1, -1, -1, Collections.nCopies(slots, (long) Integer.MAX_VALUE), -1, 0, -1);
  }

  private static Result.SemaphoreStatus status(int nameBytes) {
    return new Result.SemaphoreStatus(
        Name.of("n".repeat(nameBytes)),
        Long.MAX_VALUE,
        new SemaphoreOptions(Long.MAX_VALUE, Policy.BARGING, Integer.MAX_VALUE),
        Integer.MAX_VALUE,
        Integer.MAX_VALUE,
        Integer.MAX_VALUE,
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        Long.MAX_VALUE);
  }

  private static SemaphoreDetail encode(
      List<Result.WaiterView> queue,
      List<Result.HolderView> holders,
      List<Result.LeaseView> leases) {
    return WireResults.detail(
        new Result.SemaphoreDetail(
            status(1), queue, holders, leases, new Query.Position(-1, -1, -1), true, true, true),
        LOG_TIME);
  }

  @Test
  void everyEntryEncodesWithinWhatThePageBudgetCountsForIt() {
    int slots = 65_536; // the default maxSlottedCapacity: no holding or lease has more
    SemaphoreDetail d =
        encode(List.of(worstWaiter()), List.of(worstHolder(slots)), List.of(worstLease(slots)));

    assertThat(CodedOutputStream.computeMessageSize(2, d.getQueue(0)))
        .isLessThanOrEqualTo(
            Query.Inspect.WAITER_BYTES
                + LONGEST_KIND.length()
                + Query.Inspect.clientBytes(WORST_CLIENT));
    assertThat(CodedOutputStream.computeMessageSize(3, d.getHolders(0)))
        .isLessThanOrEqualTo(
            Query.Inspect.HOLDER_BYTES
                + Query.Inspect.SLOT_BYTES * slots
                + Query.Inspect.clientBytes(WORST_CLIENT));
    assertThat(CodedOutputStream.computeMessageSize(4, d.getLeases(0)))
        .isLessThanOrEqualTo(Query.Inspect.LEASE_BYTES + Query.Inspect.SLOT_BYTES * slots);
  }

  @Test
  void aFullPageOfTheLargestEntriesWithTheLongestNameFitsWellWithinAFrame() {
    List<Result.WaiterView> queue = new ArrayList<>();
    long counted = 0;
    int waiterBytes =
        Query.Inspect.WAITER_BYTES
            + LONGEST_KIND.length()
            + Query.Inspect.clientBytes(WORST_CLIENT);
    while (counted + waiterBytes <= Query.Inspect.DEFAULT_BUDGET_BYTES) {
      queue.add(worstWaiter());
      counted += waiterBytes;
    }
    Result.SemaphoreDetail page =
        new Result.SemaphoreDetail(
            status(1_024),
            queue,
            List.of(),
            List.of(),
            new Query.Position(-1, -1, -1),
            true,
            true,
            true);
    ServerFrame frame =
        ServerFrame.newBuilder()
            .setReadResponse(
                WireResults.readResponse(
                    Long.MAX_VALUE, new Reply(0, 0, Long.MAX_VALUE, page), LOG_TIME))
            .build();

    assertThat(frame.getSerializedSize())
        .isLessThanOrEqualTo(Frames.DEFAULT_MAX_FRAME_BYTES * 3 / 4);
  }

  @Test
  void aListPageOfTheLongestNamesWithTheirStatusesFitsWellWithinAFrame() {
    List<Name> names = new ArrayList<>();
    List<Result.SemaphoreStatus> statuses = new ArrayList<>();
    long counted = 0;
    int entryBytes = Query.ListNames.NAME_BYTES + 1_024 + Query.ListNames.STATUS_BYTES + 1_024;
    while (counted + entryBytes <= Query.ListNames.BUDGET_BYTES) {
      Result.SemaphoreStatus status = status(1_024);
      names.add(status.name());
      statuses.add(status);
      counted += entryBytes;
    }
    ServerFrame frame =
        ServerFrame.newBuilder()
            .setReadResponse(
                WireResults.readResponse(
                    Long.MAX_VALUE,
                    new Reply(0, 0, Long.MAX_VALUE, new Result.NameList(names, statuses, true)),
                    LOG_TIME))
            .build();

    assertThat(frame.getSerializedSize())
        .isLessThanOrEqualTo(Frames.DEFAULT_MAX_FRAME_BYTES * 3 / 4);
    assertThat(
            CodedOutputStream.computeMessageSize(
                2, frame.getReadResponse().getNames().getStatuses(0)))
        .isLessThanOrEqualTo(Query.ListNames.STATUS_BYTES + 1_024);
  }

  @Test
  void anInspectionThatNamesNoPageAsksForTheFirstPageBudgetedAtHalfTheFrame()
      throws WireRequests.Malformed {
    Read bare =
        Read.newBuilder()
            .setInspect(Inspect.newBuilder().setName(ByteString.copyFromUtf8("x")))
            .build();
    Read paged =
        Read.newBuilder()
            .setInspect(
                Inspect.newBuilder()
                    .setName(ByteString.copyFromUtf8("x"))
                    .setLimit(7)
                    .setQueueAfter(1)
                    .setHoldersAfter(2)
                    .setLeasesAfter(3))
            .build();

    assertThat(WireRequests.query(bare, Frames.DEFAULT_MAX_FRAME_BYTES))
        .isEqualTo(
            new Query.Inspect(
                Name.of("x"), 0, Query.Position.START, Query.Inspect.DEFAULT_BUDGET_BYTES));
    assertThat(WireRequests.query(paged, 64 * 1024))
        .isEqualTo(new Query.Inspect(Name.of("x"), 7, new Query.Position(1, 2, 3), 32 * 1024));
  }
}
