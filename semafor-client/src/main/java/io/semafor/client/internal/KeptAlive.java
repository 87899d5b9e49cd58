package io.semafor.client.internal;

import io.semafor.client.SemaforException;
import io.semafor.protocol.Frames;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.KeepAlive;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A keep-alive a {@link Link} sent: its id, the acknowledgements it carried, and who waits for its
 * pong. Kept until the pong comes, and sent again on a resume.
 */
record KeptAlive(long id, List<Long> acks, List<CompletableFuture<Void>> waiters) {
  /** The frame that sends it (again, on a resume): waiters ask for a pong once all is applied. */
  byte[] frame() {
    return Frames.encode(
        ClientFrame.newBuilder()
            .setKeepAlive(
                KeepAlive.newBuilder().setId(id).addAllAcks(acks).setSync(!waiters.isEmpty()))
            .build());
  }

  void confirmed() {
    for (CompletableFuture<Void> w : waiters) {
      w.complete(null);
    }
  }

  void failed(SemaforException e) {
    for (CompletableFuture<Void> w : waiters) {
      w.completeExceptionally(e);
    }
  }
}
