package io.semafor.microraft;

import java.util.Random;

/**
 * The randomness of MicroRaft 0.7's election rounds, widened to the operator's range. A candidate
 * whose round fails waits the election timeout plus a random extra before it stands again (so does
 * a pre-candidate whose pre-vote goes unanswered), and 0.7 draws that extra as {@code nextInt(100)}
 * of its milliseconds, whatever the timeout (a constant in {@code RaftNodeImpl}). On Semafor's
 * clock a MicroRaft second lasts one heartbeat period ({@link TimeScale}), so the extra was at most
 * a tenth of a period: 10 ms against rounds of 300 ms. Candidates that started together then stood
 * again within 10 ms of each other and could split the vote round after round whenever a vote took
 * longer than that to come back (a loaded machine, a flushed term; issue 34). With this, the extra
 * is drawn over the whole spread the operator gave ({@code --election-timeout 300ms-600ms}: up to
 * 300 ms), as Raft asks.
 *
 * <p>Only for MicroRaft 0.7's {@code RaftNodeBuilder.setRandom}, which draws nothing else from it
 * ({@code ElectionSpreadTest} checks that its rounds take this spread): {@link #nextInt(int)}
 * answers with a bound of at least the spread, so it does not keep {@link Random}'s contract for
 * any other caller. Thread-safe as {@link Random} is.
 */
final class ElectionSpread extends Random {
  private static final long serialVersionUID = 1L;

  /** The spread in MicroRaft's milliseconds. */
  private final int spreadRaftMillis;

  ElectionSpread(long spreadRaftMillis) {
    this.spreadRaftMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, spreadRaftMillis));
  }

  /** A value in {@code [0, max(bound, spread))}. */
  @Override
  public int nextInt(int bound) {
    return super.nextInt(Math.max(bound, spreadRaftMillis));
  }
}
