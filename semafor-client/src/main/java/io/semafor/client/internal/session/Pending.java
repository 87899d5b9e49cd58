package io.semafor.client.internal.session;

import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;

/** A request of a {@link ClientSession} with no answer yet. */
final class Pending {
  /** As the caller submitted it (its id and acknowledgements are set when it is sent). */
  final Request request;

  /** The id it goes out under: the caller's, or a new one after a refusal. */
  long wireId;

  /** Complete only once the acknowledgement of its answer is applied. */
  final boolean confirm;

  /** The machine's own (cancel, close): no effect for its answer. */
  final boolean internal;

  /** On the current connection. */
  boolean sent;

  int attempts;

  Pending(Request request, long id, boolean confirm, boolean internal) {
    this.request = request;
    this.wireId = id;
    this.confirm = confirm;
    this.internal = internal;
  }

  /** A read of a {@link ClientSession} with no answer yet. */
  static final class ReadCall {
    final Read read;
    boolean sent;

    ReadCall(Read read) {
      this.read = read;
    }
  }

  /** An answer read whose delivery is not confirmed yet (its acknowledgement's Pong). */
  record Confirming(long requestId, Request request, io.semafor.protocol.v1.Response response) {}
}
