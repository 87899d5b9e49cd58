package io.semafor.cli;

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
}
