package io.semafor.raft;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;

/**
 * Ratis's gRPC transport, unchanged, except that every log appender it makes is handed to the
 * member's {@link AppenderWatch} (given in the server's parameters under {@link #WATCH}). Named in
 * {@code raft.rpc.type}, which takes the class name of a user-defined type: Ratis's documented way
 * to plug in a transport, so no Ratis internals are touched. Public for Ratis's reflection only.
 */
public final class WatchedGrpcRpcType implements RpcType {
  /** The parameters' key for the {@link AppenderWatch}. */
  static final String WATCH = "semafor.appender.watch";

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
    private final @org.jspecify.annotations.Nullable AppenderWatch watch;

    Factory(Parameters parameters) {
      super(parameters);
      this.watch = parameters.get(WATCH, AppenderWatch.class); // absent for clients
    }

    @Override
    public LogAppender newLogAppender(
        RaftServer.Division server, LeaderState state, FollowerInfo f) {
      LogAppender appender = super.newLogAppender(server, state, f);
      if (watch != null) {
        watch.watch(appender);
      }
      return appender;
    }
  }
}
