package io.semafor.cli;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import picocli.CommandLine.Option;

/**
 * The lease's semaphore, for {@code release} and {@code renew} by permit id: a server that checks
 * permissions checks them on it, and does not find a lease on another semaphore.
 */
final class LeaseSemaphoreOption {
  @Option(
      names = "--semaphore",
      paramLabel = "NAME",
      description =
          "The lease's semaphore; required by a server that checks permissions (a lease on"
              + " another semaphore is then not found).")
  String name = "";

  /**
   * {@code e}, saying what to do when a server that checks permissions refused a lease named by its
   * id alone: the server can check nothing without the semaphore, and its message speaks of the
   * protocol's field, not of this option. Same code, so scripts see no change.
   */
  SemaforException explain(SemaforException e) {
    if (!name.isEmpty() || e.code() != ErrorCode.PERMISSION_DENIED) {
      return e;
    }
    String message = String.valueOf(e.getMessage());
    return new SemaforException(
        e.code(),
        message
            + "; pass --semaphore NAME, the lease's semaphore (`semafor inspect NAME` lists its"
            + " leases)",
        e);
  }
}
