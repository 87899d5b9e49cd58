package io.semafor.client.internal.session;

import com.google.protobuf.ByteString;
import io.semafor.protocol.v1.Watch;
import io.semafor.protocol.v1.WatchEvent;
import java.util.HashSet;
import java.util.Set;

/**
 * Where one watch stands in the server's change history (docs/protocol.md §4b, "Resume"): what to
 * send as {@code after_revision} after a reconnect, and which events of the resumed stream were
 * told already. Pure; not thread-safe.
 *
 * <p>Live events come in revision order; one command's changes to several names share its revision.
 * So after events at revision r, everything before r was told, and at r the names in {@code told}:
 * a resume asks for {@code after_revision = r - 1} and drops the resumed events at r whose name was
 * told. A {@code SYNCED} at r means everything up to r was told. Before the first {@code SYNCED} of
 * a start or resume (the catch-up, one state per name, not necessarily in revision order) the
 * position does not move: a cut there resumes from where that catch-up began.
 */
final class WatchPosition {
  private final Watch spec;
  private long after;
  private Set<ByteString> told = new HashSet<>();
  private boolean live;

  /** {@code spec}: the watch as asked for (its id is not used); resumes from its revision. */
  WatchPosition(Watch spec) {
    this.spec = spec;
    this.after = spec.getAfterRevision();
  }

  /** The {@code Watch} to send on a new connection; the catch-up begins. */
  Watch start(long watchId) {
    live = false;
    return spec.toBuilder().setId(watchId).setAfterRevision(after).build();
  }

  /**
   * Moves the position past {@code event}; whether to hand it to the reader (false: told before the
   * reconnect).
   */
  boolean accept(WatchEvent event) {
    WatchEvent.Kind kind = event.getKind();
    if (kind == WatchEvent.Kind.SYNCED) {
      live = true;
      after = Math.max(after, event.getRevision());
      told = new HashSet<>();
      return true;
    }
    if (kind == WatchEvent.Kind.RESYNC) {
      told = new HashSet<>();
      return true;
    }
    if (kind != WatchEvent.Kind.CHANGED && kind != WatchEvent.Kind.DELETED) {
      return true;
    }
    if (!told.isEmpty() && event.getRevision() == after + 1 && told.contains(event.getName())) {
      return false; // the same name at the same revision: told before the cut
    }
    if (live) {
      if (event.getRevision() != after + 1) { // a later command: all before it was told
        after = event.getRevision() - 1;
        told = new HashSet<>();
      }
      told.add(event.getName());
    }
    return true;
  }
}
