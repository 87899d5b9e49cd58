package io.semafor.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.semafor.ErrorCode;
import io.semafor.core.Command;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.replication.Replicator;
import io.semafor.server.security.Audit;
import io.semafor.server.security.Principal;
import io.semafor.server.session.ServerEffect;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Carries out what a connection's {@link io.semafor.server.session.ServerSession} decided: writes
 * and closes on the channel, proposals and reads to the replicator with this connection as their
 * origin, the session's attachment, audit lines. Keeps the audited requests in flight, whose
 * outcome the audit log is told on the applying thread. Thread-safe; called outside the machine's
 * lock, from whichever thread stepped it.
 */
final class ConnectionEffects {
  private final Connection connection;
  private final Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator;
  private final Sessions sessions;
  private final Edge edge;
  private final ServerConfig config;

  /** Audited requests in flight: request id to what the audit log calls them. */
  private final ConcurrentHashMap<Long, String> audited = new ConcurrentHashMap<>();

  ConnectionEffects(
      Connection connection,
      Replicator<CommandOrigin, ReadOrigin, PendingSnapshot> replicator,
      Sessions sessions,
      Edge edge,
      ServerConfig config) {
    this.connection = connection;
    this.replicator = replicator;
    this.sessions = sessions;
    this.edge = edge;
    this.config = config;
  }

  /**
   * Carries out {@code effects} in order. A proposal or read the replicator refuses because it is
   * closing closes the connection with UNAVAILABLE.
   */
  void run(List<ServerEffect> effects) {
    for (ServerEffect effect : effects) {
      try {
        carryOut(effect);
      } catch (Replicator.ReplicatorClosedException e) {
        connection.fatal(ErrorCode.UNAVAILABLE, "the server is shutting down");
      }
    }
  }

  @SuppressWarnings("FutureReturnValueIgnored") // writes: a failure closes the channel
  private void carryOut(ServerEffect effect) {
    Channel c = connection.channel();
    if (effect instanceof ServerEffect.Send send) {
      if (c != null && c.isActive()) {
        c.writeAndFlush(send.frame(), c.voidPromise());
      }
    } else if (effect instanceof ServerEffect.Heard heard) {
      sessions.heard(heard.sessionId());
    } else if (effect instanceof ServerEffect.SubmitRequest submit) {
      submit(submit);
    } else if (effect instanceof ServerEffect.Acknowledge ack) {
      replicator.submit(ack.command(), new AfterAcks(connection, ack.then()));
    } else if (effect instanceof ServerEffect.SendAndClose last) {
      if (c != null) {
        c.writeAndFlush(last.frame()).addListener(ChannelFutureListener.CLOSE);
        c.eventLoop().schedule(() -> c.close(), Connection.FATAL_GRACE_SECONDS, TimeUnit.SECONDS);
      }
    } else if (effect instanceof ServerEffect.AutoRead read) {
      if (c != null) {
        c.config().setAutoRead(read.on());
      }
    } else if (effect instanceof ServerEffect.Attach attach) {
      Sessions.Live live = sessions.get(attach.sessionId());
      if (live != null) {
        sessions.attach(live, connection);
      }
    } else if (effect instanceof ServerEffect.Detach detach) {
      sessions.detach(detach.sessionId(), connection);
    } else if (effect instanceof ServerEffect.OpenSession open) {
      try {
        replicator.submit(open.command(), connection);
      } catch (Replicator.ReplicatorClosedException e) {
        connection.openNotSubmitted();
      }
    } else if (effect instanceof ServerEffect.Read read) {
      replicator.read(read.query(), new PendingRead(connection, read.id()));
    } else if (effect instanceof ServerEffect.StartWatch start) {
      // a barrier is the start's place in the apply order (linearizable: on a new leader, after
      // everything committed)
      replicator.read(new Query.Barrier(), new EdgeWatches.Start(connection, start.watch()));
    } else if (effect instanceof ServerEffect.StopWatch stop) {
      edge.unwatch(connection, stop.id());
    } else if (effect instanceof ServerEffect.Snapshot snapshot) {
      replicator.snapshot(new PendingSnapshot(connection, snapshot.id()));
    } else if (effect instanceof ServerEffect.Audit audit) {
      Audit.record(audit.action(), audit.who(), audit.address(), audit.outcome());
    } else if (effect instanceof ServerEffect.RefuseWaiting refuse) {
      Revocation.sweep(
          replicator,
          new Revocation.Sweep(
              config.security().access(),
              Set.of(refuse.sessionId()),
              refuse.reason(),
              new CompletableFuture<>()));
    }
  }

  private void submit(ServerEffect.SubmitRequest submit) {
    Command.Request command = submit.command();
    String action = submit.audited();
    // before the submit: a local replicator may apply (and answer) on this very thread
    if (action != null) {
      audited.put(command.requestId(), action);
    }
    try {
      replicator.submit(command, connection);
    } catch (RuntimeException e) {
      if (action != null && audited.remove(command.requestId()) != null) {
        Audit.record(action, asker(), connection.address(), "UNAVAILABLE: not submitted: " + e);
      }
      throw e;
    }
  }

  /**
   * Called on the applying thread with the reply to every request this connection submitted,
   * wherever the reply goes: the reply to an audited request writes its outcome to the audit log,
   * with the principal and address that asked. Cheap when nothing is audited.
   */
  void answered(Reply reply) {
    if (audited.isEmpty()) {
      return;
    }
    String action = audited.remove(reply.requestId());
    if (action != null) {
      String outcome =
          reply.result() instanceof Result.Failure f ? f.code() + ": " + f.message() : "ok";
      Audit.record(action, asker(), connection.address(), outcome);
    }
  }

  /**
   * A request this connection submitted will not be answered here: this node stopped leading before
   * it was applied. An audited one is logged with its outcome unknown — the new leader's log
   * decides whether it happened, and the client sends it again there under the same id.
   */
  void unanswered(long requestId) {
    String action = audited.remove(requestId);
    if (action != null) {
      Audit.record(
          action,
          asker(),
          connection.address(),
          "UNKNOWN: NOT_LEADER before the answer; the leader's log decides, the client retries there");
    }
  }

  private Principal asker() {
    Principal who = connection.principal();
    return who == null ? Principal.ANONYMOUS : who;
  }
}
