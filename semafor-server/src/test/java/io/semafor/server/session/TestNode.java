package io.semafor.server.session;

import io.semafor.core.SessionOwner;
import io.semafor.server.security.Access;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A node as a test sets it: rules, leadership, live sessions and counts it can read back. */
final class TestNode implements NodeView {
  Access access = Access.OPEN;
  boolean leads = true;
  String leaderHint = "";
  long revision = 40;
  final Map<Long, LiveSession> sessions = new HashMap<>();

  /** Sessions each owner may have; taken counts per owner. */
  int sessionQuota = 10;

  final Map<String, Integer> quotaTaken = new HashMap<>();
  final Map<Long, String> counted = new HashMap<>();

  /** Connections each principal may have; counted per principal. */
  int principalCap = 10;

  final Map<String, Integer> principals = new HashMap<>();

  void live(long id, long ttlNanos, SessionOwner owner) {
    sessions.put(id, new LiveSession(id, ttlNanos, owner));
  }

  @Override
  public Access access() {
    return access;
  }

  @Override
  public boolean leads() {
    return leads;
  }

  @Override
  public String leaderHint() {
    return leaderHint;
  }

  @Override
  public long lastRevision() {
    return revision;
  }

  @Override
  public @Nullable LiveSession session(long id) {
    return sessions.get(id);
  }

  @Override
  public @Nullable String takeSessionQuota(String owner) {
    int taken = quotaTaken.getOrDefault(owner, 0);
    if (taken >= sessionQuota) {
      return "maxSessionsPerClient: " + owner + " has " + taken + " sessions";
    }
    quotaTaken.put(owner, taken + 1);
    return null;
  }

  @Override
  public void giveBackSessionQuota(String owner) {
    quotaTaken.merge(owner, -1, Integer::sum);
  }

  @Override
  public boolean countSession(long id, String owner) {
    if (!sessions.containsKey(id)) {
      return false;
    }
    counted.put(id, owner);
    return true;
  }

  @Override
  public @Nullable String admitPrincipal(String name) {
    int n = principals.getOrDefault(name, 0);
    if (n >= principalCap) {
      return "maxConnectionsPerPrincipal: " + name + " has " + n + " connections";
    }
    principals.put(name, n + 1);
    return null;
  }

  @Override
  public void releasePrincipal(String name) {
    principals.merge(name, -1, Integer::sum);
  }
}
