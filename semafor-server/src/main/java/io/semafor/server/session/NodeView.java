package io.semafor.server.session;

import io.semafor.core.SessionOwner;
import io.semafor.server.security.Access;
import org.jspecify.annotations.Nullable;

/**
 * What a connection's session machine reads of the node around it, and the shared counts it takes
 * from: the rules in force, who leads, the live sessions, the quotas of sessions and connections.
 * Reads are of state other connections change too, so each answer is as of the call; the counts are
 * taken and given back here, not as effects, because whether one could be taken decides what the
 * machine does next. Implementations are thread-safe; a test's is a plain fake.
 */
public interface NodeView {
  /** The access rules in force now (a reload replaces them). */
  Access access();

  /** Whether this node leads: only a leader opens and resumes sessions. */
  boolean leads();

  /** The leader's client address, or empty if no leader is known. */
  String leaderHint();

  /** The revision of the last command applied, for a {@code Welcome}. */
  long lastRevision();

  /** The live session {@code id}; null if it does not exist or has ended. */
  @Nullable LiveSession session(long id);

  /**
   * Takes one session from {@code owner}'s quota; why not if it is full (then nothing is taken).
   */
  @Nullable String takeSessionQuota(String owner);

  /** Gives back one session taken from {@code owner}'s quota. */
  void giveBackSessionQuota(String owner);

  /**
   * Counts the session {@code id}, just opened, against {@code owner}'s quota until it ends; false
   * if it has ended already (then the caller gives the quota back).
   */
  boolean countSession(long id, String owner);

  /**
   * Counts one connection against the principal {@code name}'s cap; why not if it has its fill
   * (then nothing is counted).
   */
  @Nullable String admitPrincipal(String name);

  /** Gives back one connection counted against the principal {@code name}. */
  void releasePrincipal(String name);

  /**
   * A live session as the machine needs to see it.
   *
   * @param id its id
   * @param ttlNanos its TTL
   * @param owner who may resume it
   */
  record LiveSession(long id, long ttlNanos, SessionOwner owner) {}
}
