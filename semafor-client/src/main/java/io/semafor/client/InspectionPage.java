package io.semafor.client;

/**
 * One page of {@link NamedSemaphore#inspectPage}: the semaphore's summary with a page of each list
 * in {@code info}, where each list resumes ({@code next}), and whether each has entries past this
 * page.
 */
public record InspectionPage(
    SemaphoreInfo info,
    InspectionCursor next,
    boolean queueMore,
    boolean holdersMore,
    boolean leasesMore) {

  /** True if no list has entries past this page. */
  public boolean complete() {
    return !queueMore && !holdersMore && !leasesMore;
  }
}
