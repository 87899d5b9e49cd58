package io.semafor.microraft;

import java.nio.file.Path;

/**
 * A MicroRaft member was started on a data directory a member used before. Its log was in memory
 * and is gone, so it could vote twice in one term if it rejoined under its id: it is refused.
 */
public final class UsedDataDirException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** {@code dir} held member {@code memberId}. */
  public UsedDataDirException(Path dir, String memberId) {
    super(
        dir
            + " was the data directory of member "
            + memberId
            + ": the MicroRaft replicator keeps its log in memory, so a member that stopped cannot"
            + " come back (it could vote twice in one term). Start the cluster afresh with empty"
            + " data directories (decision 0043)");
  }
}
