package io.semafor.client;

/**
 * Where an inspection resumes in each list: after this arrival sequence (queue), session id
 * (holders) and permit id (leases). Take it from {@link InspectionPage#next()}; {@link #START}
 * reads every list from its beginning.
 */
public record InspectionCursor(long queueAfter, long holdersAfter, long leasesAfter) {
  /** Every list from its beginning. */
  public static final InspectionCursor START = new InspectionCursor(0, 0, 0);
}
