package io.semafor.raft;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.jspecify.annotations.Nullable;

/**
 * Ratis's gRPC transport, except that its log appenders are {@link RepairingLogAppender}s, each
 * handed to the member's {@link AppenderWatch} (given in the server's parameters under {@link
 * #WATCH}, with the counts of repairs under {@link #REPAIRS}). Named in {@code raft.rpc.type},
 * which takes the class name of a user-defined type: Ratis's documented way to plug in a transport,
 * so no Ratis internals are touched. Public for Ratis's reflection only.
 */
public final class WatchedGrpcRpcType implements RpcType {
  /** The parameters' key for the {@link AppenderWatch}. */
  static final String WATCH = "semafor.appender.watch";

  /** The parameters' key for the {@link AppenderRepairs}. */
  static final String REPAIRS = "semafor.appender.repairs";

  /** Made by Ratis, by reflection. */
  public WatchedGrpcRpcType() {}

  @Override
  public String name() {
    return "GRPC";
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory(parameters);
  }

  private static final class Factory extends GrpcFactory {
    private final @Nullable AppenderWatch watch;
    private final AppenderRepairs repairs;

    Factory(Parameters parameters) {
      super(parameters);
      this.watch = parameters.get(WATCH, AppenderWatch.class); // absent for clients
      AppenderRepairs counted = parameters.get(REPAIRS, AppenderRepairs.class);
      this.repairs = counted == null ? new AppenderRepairs() : counted;
    }

    @Override
    public LogAppender newLogAppender(
        RaftServer.Division server, LeaderState state, FollowerInfo f) {
      LogAppender appender = new RepairingLogAppender(server, state, f, repairs);
      if (watch != null) {
        watch.watch(appender);
      }
      return appender;
    }
  }
}
