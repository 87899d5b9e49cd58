package io.semafor.core;

import org.jspecify.annotations.Nullable;

/** A read of the state that changes nothing and needs no log entry. */
public sealed interface Query {
  /** The value and counts of one semaphore ({@code get}, {@code open}). */
  record Get(Name name) implements Query {}

  /** One semaphore with its queue, holders and leases ({@code inspect}). */
  record Inspect(Name name) implements Query {}

  /**
   * Up to {@code limit} names that start with {@code prefix}, in byte order, after {@code after} if
   * given (for paging).
   */
  record ListNames(Name prefix, int limit, @Nullable Name after) implements Query {}
}
