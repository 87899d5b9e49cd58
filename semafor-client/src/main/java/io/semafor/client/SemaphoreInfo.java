package io.semafor.client;

import io.semafor.ClientInfo;
import io.semafor.SemaphoreOptions;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A semaphore as the server saw it at {@code revision}: its free value, options, how many requests
 * wait ({@code waiters}), how many sessions own permits ({@code holders}), how many leases it has
 * ({@code leaseCount}), and how much is owned, leased and in transit. {@link
 * NamedSemaphore#inspect()} also fills in the queue in arrival order, the holders in session id
 * order and the leases in permit id order (empty lists otherwise; one page of them from {@link
 * NamedSemaphore#inspectPage}).
 */
public record SemaphoreInfo(
    String name,
    long value,
    SemaphoreOptions options,
    int waiters,
    int holders,
    int leaseCount,
    long owned,
    long leased,
    long undelivered,
    long revision,
    List<Waiter> queue,
    List<Holder> holderList,
    List<LeaseInfo> leases) {

  /** Copies the lists. */
  public SemaphoreInfo {
    queue = List.copyOf(queue);
    holderList = List.copyOf(holderList);
    leases = List.copyOf(leases);
  }

  /**
   * One waiting request, in arrival order; {@code timesOutIn} is null if it waits forever; {@code
   * client} is who its session's client said it is.
   */
  public record Waiter(
      long sessionId,
      long requestId,
      long sequence,
      String kind,
      long amount,
      @Nullable Duration timesOutIn,
      ClientInfo client) {}

  /**
   * One session's holding: its owned amount (signed SysV adjustment: negative when an owned {@code
   * semop} add is to be taken back), slots, and who its session's client said it is.
   */
  public record Holder(long sessionId, long owned, List<Long> slots, ClientInfo client) {
    /** Copies the slots. */
    public Holder {
      slots = List.copyOf(slots);
    }
  }

  /** One lease; {@code sessionId} is 0 once delivered. */
  public record LeaseInfo(
      long permitId,
      long sessionId,
      long amount,
      List<Long> slots,
      long token,
      Duration age,
      Duration expiresIn) {
    /** Copies the slots. */
    public LeaseInfo {
      slots = List.copyOf(slots);
    }
  }
}
