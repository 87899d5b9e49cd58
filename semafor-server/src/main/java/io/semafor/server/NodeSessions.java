package io.semafor.server;

import io.semafor.replication.Replicator;
import io.semafor.server.security.Access;
import io.semafor.server.session.NodeView;
import io.semafor.server.session.SessionRules;
import org.jspecify.annotations.Nullable;

/**
 * The node as every connection's session machine reads it: the rules in force, who leads, the live
 * sessions, the quotas of sessions and the caps on connections. One per server; thread-safe.
 */
final class NodeSessions implements NodeView {
  private final ServerConfig config;
  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final Sessions sessions;
  private final SessionQuota quota;
  private final ConnectionCaps caps;
  private final Edge edge;

  NodeSessions(
      ServerConfig config,
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      Sessions sessions,
      SessionQuota quota,
      ConnectionCaps caps,
      Edge edge) {
    this.config = config;
    this.replicator = replicator;
    this.sessions = sessions;
    this.quota = quota;
    this.caps = caps;
    this.edge = edge;
  }

  /** The settings of {@code config} that every connection's session machine applies. */
  static SessionRules rules(ServerConfig config) {
    ClientLimits limits = config.clientLimits();
    return new SessionRules(
        limits.helloTimeout(),
        limits.idleTimeout(),
        config.defaultSessionTtl(),
        config.minSessionTtl(),
        config.maxSessionTtl(),
        config.limits().maxNameBytes(),
        config.maxFrameBytes());
  }

  @Override
  public Access access() {
    return config.security().access();
  }

  @Override
  public boolean leads() {
    return replicator.isLeader();
  }

  @Override
  public String leaderHint() {
    return replicator.leaderHint();
  }

  @Override
  public long lastRevision() {
    return edge.lastRevision();
  }

  @Override
  public @Nullable LiveSession session(long id) {
    Sessions.Live live = sessions.get(id);
    return live == null ? null : new LiveSession(live.id, live.ttlNanos, live.owner);
  }

  @Override
  public @Nullable String takeSessionQuota(String owner) {
    return quota.tryTake(owner);
  }

  @Override
  public void giveBackSessionQuota(String owner) {
    quota.release(owner);
  }

  @Override
  public boolean countSession(long id, String owner) {
    return sessions.own(id, owner);
  }

  @Override
  public @Nullable String admitPrincipal(String name) {
    return caps.admitPrincipal(name);
  }

  @Override
  public void releasePrincipal(String name) {
    caps.releasePrincipal(name);
  }
}
