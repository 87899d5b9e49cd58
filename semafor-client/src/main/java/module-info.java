/**
 * The Java client of Semafor: {@code io.semafor.client} is its whole API ({@code SemaforClient} and
 * the types it hands out). {@code io.semafor.client.internal} — the session's link, the dialer, the
 * wire — is not exported: a program on the module path cannot reach it, and it may change in any
 * release (docs/client.md).
 */
module io.semafor.client {
  requires transitive io.semafor; // ErrorCode, SemaphoreOptions, Policy, ClientInfo: its API too
  requires io.semafor.protocol;
  requires static transitive org.jspecify; // annotations only: not needed at run time
  requires org.slf4j;

  exports io.semafor.client;
}
