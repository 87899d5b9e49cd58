/**
 * The value types shared by Semafor's state machine and its Java client, defined once (issue 33,
 * decision 0059): {@code ErrorCode}, {@code SemaphoreOptions}, {@code Policy}, {@code ClientInfo}.
 * The client's module requires it transitively, so a client program names them as it names the
 * client's own types.
 */
module io.semafor {
  exports io.semafor;
}
