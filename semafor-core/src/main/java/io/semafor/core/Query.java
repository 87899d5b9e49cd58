package io.semafor.core;

import io.semafor.ClientInfo;
import org.jspecify.annotations.Nullable;

/** A read of the state that changes nothing and needs no log entry. */
public sealed interface Query {
  /** The value and counts of one semaphore ({@code get}, {@code open}). */
  record Get(Name name) implements Query {}

  /**
   * One page of a semaphore's queue, holders and leases ({@code inspect}), with its summary.
   *
   * <p>Each list pages on a key that never changes while its entry stays: the queue on the arrival
   * sequence, holders on the session id, leases on the permit id. A page shows the entries whose
   * keys are greater than {@code from}'s, in key order, at most {@code limit} from each list, and
   * stops early when the estimated encoded size of its entries would pass {@code budgetBytes}
   * (always showing at least one entry, so paging progresses). Pass the answer's {@link
   * Result.SemaphoreDetail#next()} as the next page's {@code from}: an entry that stays is shown
   * exactly once across the pages; one that arrives or leaves meanwhile may or may not be.
   *
   * @param limit most entries per list; 0 means {@link #DEFAULT_LIMIT}, more than {@link
   *     #MAX_LIMIT} means {@link #MAX_LIMIT}; negative is INVALID_ARGUMENT
   * @param from where each list resumes; {@link Position#START} for the first page
   * @param budgetBytes the most bytes the page's entries may take in the wire encoding; 0 means
   *     {@link #DEFAULT_BUDGET_BYTES}; negative is INVALID_ARGUMENT
   */
  record Inspect(Name name, int limit, Position from, int budgetBytes) implements Query {
    /** Entries per list when the reader names no limit. */
    public static final int DEFAULT_LIMIT = 1_000;

    /** The most entries per list one page shows. */
    public static final int MAX_LIMIT = 4_096;

    /**
     * The default budget for a page's entries: half the default 1 MiB frame, leaving room for the
     * summary (a name is at most 1,024 bytes by default) and the framing.
     */
    public static final int DEFAULT_BUDGET_BYTES = 512 * 1024;

    /*
     * What the budget counts for each entry: an upper bound of its size in the wire encoding
     * (semafor.proto), with the entry's tag and length, a tag and a 10-byte varint per number, the
     * kind's bytes (added per waiter) and 5 bytes per slot (slots are below 2^31).
     */

    /** Bytes counted for a waiter, plus the length of its kind. */
    public static final int WAITER_BYTES = 59;

    /** Bytes counted for a holder, plus {@link #SLOT_BYTES} per slot. */
    public static final int HOLDER_BYTES = 34;

    /** Bytes counted for a lease, plus {@link #SLOT_BYTES} per slot. */
    public static final int LEASE_BYTES = 78;

    /** Bytes counted per slot of a holder or lease. */
    public static final int SLOT_BYTES = 5;

    /**
     * Bytes counted for the client of a waiter or holder, plus its name's and host's UTF-8 bytes:
     * the client field's tag and length, each string's tag and length, the pid's tag and varint,
     * and the entry's own length growing by a byte.
     */
    public static final int CLIENT_BYTES = 22;

    /** What {@code client} adds to a waiter's or holder's encoded size, at most. */
    public static int clientBytes(ClientInfo client) {
      return CLIENT_BYTES
          + client.name().getBytes(java.nio.charset.StandardCharsets.UTF_8).length
          + client.host().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /** The first page, of the default size. */
    public Inspect(Name name) {
      this(name, 0, Position.START, 0);
    }
  }

  /**
   * Where each list of an inspection resumes: after this arrival sequence, session id and permit id
   * (all positive when they name an entry; 0 starts the list from its beginning, {@link
   * Long#MAX_VALUE} skips it).
   */
  record Position(long queue, long holders, long leases) {
    /** Every list from its beginning. */
    public static final Position START = new Position(0, 0, 0);
  }

  /**
   * Up to {@code limit} names that start with {@code prefix}, in byte order, after {@code after} if
   * given (for paging).
   */
  record ListNames(Name prefix, int limit, @Nullable Name after, boolean withStatus)
      implements Query {
    /**
     * What one page's entries may add up to, counted as upper bounds of their encoded size: half
     * the default 1 MiB frame, as for {@link Inspect}, so that a page of long names with their
     * statuses still fits a client's frame. A page always shows at least one name.
     */
    public static final int BUDGET_BYTES = 512 * 1024;

    /** Bytes counted for a name, plus its own bytes: its tag and length. */
    public static final int NAME_BYTES = 4;

    /**
     * Bytes counted for a name's status, plus the name's bytes again: the status message's tag and
     * length, its numbers as 10-byte varints with their tags, and its options.
     */
    public static final int STATUS_BYTES = 130;

    /** Names only. */
    public ListNames(Name prefix, int limit, @Nullable Name after) {
      this(prefix, limit, after, false);
    }
  }

  /**
   * A place in the apply order and nothing more: answered with {@link Result.Passed} once every
   * command applied before it is, so whatever waits for it (a watch's start, a catch-up, a sweep of
   * permissions, a heartbeat) runs at that place, as a read would, without reading anything.
   */
  record Barrier() implements Query {}

  /**
   * {@code session list}: up to {@code limit} live sessions with ids greater than {@code after}, in
   * id order (opening order), each with its client and what it holds and awaits.
   */
  record ListSessions(int limit, long after) implements Query {
    /** The most sessions one page answers with. */
    public static final int MAX_LIMIT = 1000;
  }
}
