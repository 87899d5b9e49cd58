package io.semafor.core;

import org.jspecify.annotations.Nullable;

/**
 * Permits taken with their own expiry, named by a permit id that any session may release. Until its
 * grant is acknowledged the lease belongs to the session that asked for it and goes back if that
 * session ends; once delivered it outlives the session (docs/semantics.md#leases).
 */
final class Lease {
  final long permitId;
  final Semaphore semaphore;
  final long amount;
  final long[] slots;
  final long token;
  final long sequence;
  final long grantedAt;
  long expiresAt;
  @Nullable Session undeliveredTo;

  /**
   * The principal of the session that took it ({@link SessionOwner#principal()}): empty when nobody
   * in particular took it (a server without authentication, or a snapshot written before leases
   * remembered it). Only a session of this principal renews or releases it with {@link
   * Operation.RenewLease#takerOnly()} (decision 0047).
   */
  final String principal;

  Lease(
      long permitId,
      Semaphore semaphore,
      long amount,
      long[] slots,
      long token,
      long sequence,
      long grantedAt,
      long expiresAt,
      @Nullable Session undeliveredTo,
      String principal) {
    this.permitId = permitId;
    this.semaphore = semaphore;
    this.amount = amount;
    this.slots = slots;
    this.token = token;
    this.sequence = sequence;
    this.grantedAt = grantedAt;
    this.expiresAt = expiresAt;
    this.undeliveredTo = undeliveredTo;
    this.principal = principal;
  }
}
